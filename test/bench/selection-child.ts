/**
 * One timed selection pass for `bench:selection`, in a process of its own so that its peak
 * RSS is its own: `selection-child.ts <new|old> <runId> <maxTasks> <postgres-url schema | pglite-dir>`.
 * Prints `{"tasks": n, "ms": t}` (opening the store is not timed).
 */
import { selectForRun } from "@assay/pipeline";
import { openStore } from "@assay/store";
import { selectPerTask } from "../support/per-task-selection.js";
import { timed } from "./bench-util.js";

const [mode, runId, maxTasks, where, schema] = process.argv.slice(2) as string[];
const store = await openStore(
  where?.startsWith("postgres") === true
    ? { databaseUrl: where, ...(schema !== undefined && { schema }), poolSize: 2 }
    : { dataDir: where as string, create: false },
);
const query = { verifierScorer: "judge", checkScorer: "exact" };
try {
  const { ms, value: tasks } = await timed(async () =>
    mode === "new"
      ? (await selectForRun(store, runId as string, query)).tasks
      : selectPerTask(store, runId as string, { ...query, maxTasks: Number(maxTasks) }),
  );
  console.log(JSON.stringify({ tasks, ms }));
} finally {
  await store.close();
}
