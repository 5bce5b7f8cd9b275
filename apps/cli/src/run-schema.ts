import { NotFoundError } from "@assay/core/errors";
import { type Store, schemasHoldingRun, UnmigratedStoreError } from "@assay/store";

/**
 * Checks, for a command given a run id, that the store it opened holds the run. Where it
 * does not (no Assay tables in the schema it looked in, or no such run there), the other
 * schemas of the same database are searched, and a run found there ends the command with
 * the `--db-schema` that finds it: without the flag, status would otherwise suggest
 * migrating an empty schema. `open` opens and checks the store as the command does.
 */
export async function openStoreHoldingRun(
  runId: string,
  databaseUrl: string | undefined,
  dbSchema: string | undefined,
  open: () => Promise<Store>,
): Promise<Store> {
  if (databaseUrl === undefined) return open();
  let store: Store;
  try {
    store = await open();
  } catch (error) {
    if (!(error instanceof UnmigratedStoreError)) throw error;
    throw (
      (await foundElsewhere(
        runId,
        databaseUrl,
        dbSchema,
        "its Assay tables are missing or behind",
      )) ?? error
    );
  }
  if ((await store.getRun(runId)) !== undefined) return store;
  const elsewhere = await foundElsewhere(runId, databaseUrl, dbSchema, "it holds no such run");
  if (elsewhere === undefined) return store;
  await store.close().catch(() => {});
  throw elsewhere;
}

async function foundElsewhere(
  runId: string,
  databaseUrl: string,
  dbSchema: string | undefined,
  why: string,
): Promise<NotFoundError | undefined> {
  const holding = (await schemasHoldingRun(databaseUrl, runId).catch(() => [])).filter(
    (schema) => schema !== dbSchema,
  );
  if (holding.length === 0) return undefined;
  const looked =
    dbSchema === undefined ? "the schema the server's search_path names" : `schema ${dbSchema}`;
  const found =
    holding.length === 1
      ? `schema ${holding[0]} holds it: add --db-schema ${holding[0]}`
      : `schemas ${holding.join(", ")} each hold a run of that id: add --db-schema with the one you mean`;
  return new NotFoundError(`Run "${runId}" is not in ${looked} (${why}); ${found}.`);
}
