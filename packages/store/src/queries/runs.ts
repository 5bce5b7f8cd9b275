import { and, eq, isNotNull, isNull, lte, sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { runs } from "../schema.js";
import type { RunOrigin, RunRecord, StartRunInput } from "../store.js";

export type AnyPgDatabase = PgDatabase<PgQueryResultHKT>;

/**
 * Records the run and makes its raw tables' partitions (migration 0015), in one
 * transaction: a second process starting the same run waits on the first one's row, then
 * finds the partitions made. A run made before partitions (migrated) already has them.
 */
export async function startRun(
  db: AnyPgDatabase,
  input: StartRunInput,
): Promise<{ created: boolean }> {
  return db.transaction(async (tx) => {
    const inserted = await tx
      .insert(runs)
      .values({
        id: input.id,
        name: input.name ?? null,
        dataset: input.dataset ?? null,
        spec: input.spec,
        transport: input.transport,
        ...input.origin,
      })
      .onConflictDoNothing()
      .returning({ id: runs.id });
    await tx.execute(sql`SELECT assay_create_run_partitions(${input.id})`);
    return { created: inserted.length > 0 };
  });
}

export async function getRun(db: AnyPgDatabase, id: string): Promise<RunRecord | undefined> {
  const found = await db.select().from(runs).where(eq(runs.id, id)).limit(1);
  return found[0];
}

/** Results a run plans: in all, and those a model call scores (the GPU pool). */
export interface PlannedResults {
  results: number;
  modelResults: number;
}

export async function setPlanned(
  db: AnyPgDatabase,
  runId: string,
  planned: PlannedResults,
): Promise<void> {
  await db
    .update(runs)
    .set({ plannedResults: planned.results, plannedModelResults: planned.modelResults })
    .where(eq(runs.id, runId));
}

export async function clearPlan(db: AnyPgDatabase, runId: string): Promise<void> {
  await db
    .update(runs)
    .set({ plannedResults: null, plannedModelResults: null })
    .where(eq(runs.id, runId));
}

export async function finishRun(db: AnyPgDatabase, runId: string): Promise<boolean> {
  const updated = await db
    .update(runs)
    .set({ finishedAt: sql`now()` })
    .where(and(eq(runs.id, runId), isNull(runs.finishedAt)))
    .returning({ id: runs.id });
  return updated.length > 0;
}

/** Sets `abandoned_at` the first time only; true when this call set it. */
export async function abandonRun(db: AnyPgDatabase, runId: string): Promise<boolean> {
  const updated = await db
    .update(runs)
    .set({ abandonedAt: sql`now()` })
    .where(and(eq(runs.id, runId), isNull(runs.abandonedAt)))
    .returning({ id: runs.id });
  return updated.length > 0;
}

export async function reopenRun(db: AnyPgDatabase, runId: string): Promise<void> {
  await db.update(runs).set({ finishedAt: null }).where(eq(runs.id, runId));
}

export async function setRunOrigin(
  db: AnyPgDatabase,
  runId: string,
  made: { dataset: string; spec: unknown; origin: RunOrigin },
): Promise<void> {
  await db
    .update(runs)
    .set({ dataset: made.dataset, spec: made.spec, ...made.origin })
    .where(eq(runs.id, runId));
}

export async function recordDatasetRead(
  db: AnyPgDatabase,
  runId: string,
  bytes: number,
  sha256: string,
): Promise<void> {
  // Only a run with a recorded origin, and only forward: an attempt that reads the file
  // again from its start must not shrink what an earlier attempt's hash covers.
  await db
    .update(runs)
    .set({ datasetSha256: sha256, datasetHashedBytes: bytes })
    .where(
      and(eq(runs.id, runId), isNotNull(runs.datasetBytes), lte(runs.datasetHashedBytes, bytes)),
    );
}
