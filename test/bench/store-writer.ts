/**
 * `npm run bench:store`: score rows/s of the batched idempotent writer (what every worker
 * uses) against, in the same run on the same table: a raw COPY (the fastest bulk load, no
 * guarantees) and one drizzle multi-row insert per batch. Targets: writer ≥ 0.3 × COPY and
 * ≥ 2 × drizzle.
 */
import { parseArgs } from "node:util";
import type { ScoreRow } from "@assay/core";
import { openStore, type Store } from "@assay/store";
import { driverOf } from "@assay/store/driver";
import { scores } from "@assay/store/schema";
import { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/services";
import { drizzle } from "drizzle-orm/node-postgres";
import { fmt, median, timed } from "./bench-util.js";
import { rawBulkInsertScores } from "./raw-copy-baseline.js";

const { values: flags } = parseArgs({
  options: {
    rows: { type: "string", default: "100000" },
    batch: { type: "string", default: "1000" },
    reps: { type: "string", default: "3" },
  },
});
const rowCount = Number(flags.rows);
const batch = Number(flags.batch);
const reps = Number(flags.reps);

const rowsOf = (runId: string): ScoreRow[] =>
  Array.from({ length: rowCount }, (_, i) => ({
    runId,
    sampleId: `s${i}`,
    scorer: "exact",
    criterion: "",
    repetition: 0,
    rule: "default",
    status: i % 7 === 0 ? "unscored" : "scored",
    value: i % 7 === 0 ? null : (i % 3) / 2,
    reason: i % 7 === 0 ? "error" : null,
    detail: i % 5 === 0 ? { note: `row ${i}` } : null,
  }));

async function writerRate(store: Store, runId: string): Promise<number> {
  const rows = rowsOf(runId);
  const writer = store.createScoreWriter({ maxBatch: batch, maxDelayMs: 20 });
  // Many concurrent adds, as a worker's jobs make them; add() waits when the buffer is full.
  const { ms } = await timed(async () => {
    await Promise.all(rows.map((row) => writer.add(row)));
    await writer.close();
  });
  return (rowCount * 1000) / ms;
}

async function copyRate(store: Store, runId: string): Promise<number> {
  const rows = rowsOf(runId);
  const { ms } = await timed(() => rawBulkInsertScores(store, rows));
  return (rowCount * 1000) / ms;
}

async function drizzleRate(store: Store, runId: string): Promise<number> {
  const driver = driverOf(store);
  if (driver.kind !== "postgres") throw new Error("bench:store needs Postgres");
  const db = drizzle(driver.pool);
  const rows = rowsOf(runId);
  const { ms } = await timed(async () => {
    for (let i = 0; i < rows.length; i += batch)
      await db.insert(scores).values(rows.slice(i, i + batch));
  });
  return (rowCount * 1000) / ms;
}

const schema = freshSchema();
const store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
try {
  const rates = { writer: [] as number[], copy: [] as number[], drizzle: [] as number[] };
  for (let rep = 0; rep < reps; rep += 1) {
    // Every run's rows go to its own partitions, made when the run starts.
    for (const kind of ["copy", "writer", "drizzle"]) {
      await store.startRun({ id: `${kind}-${rep}`, spec: {}, transport: "bench" });
    }
    rates.copy.push(await copyRate(store, `copy-${rep}`));
    rates.writer.push(await writerRate(store, `writer-${rep}`));
    rates.drizzle.push(await drizzleRate(store, `drizzle-${rep}`));
    console.log(
      `  rep ${rep + 1}: COPY ${fmt(rates.copy[rep] ?? 0)}, writer ${fmt(rates.writer[rep] ?? 0)}, ` +
        `drizzle ${fmt(rates.drizzle[rep] ?? 0)} rows/s`,
    );
  }
  const [writer, copy, perBatch] = [
    median(rates.writer),
    median(rates.copy),
    median(rates.drizzle),
  ];
  console.log(
    `bench:store — ${fmt(rowCount)} rows, batches of ${batch}, median of ${reps}: writer ${fmt(writer)} rows/s, ` +
      `raw COPY ${fmt(copy)} rows/s (ratio ${(writer / copy).toFixed(2)}, target ≥ 0.30), ` +
      `drizzle insert per batch ${fmt(perBatch)} rows/s (writer ${(writer / perBatch).toFixed(2)}×, target ≥ 2×)`,
  );
} finally {
  await store.close();
  await dropSchema(schema);
}
