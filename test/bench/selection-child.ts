/**
 * One timed selection pass for `bench:selection`, in a process of its own so that its peak
 * RSS is its own: `selection-child.ts <new|old> <runId> <maxTasks> <postgres-url schema | pglite-dir>`.
 * Prints `{"tasks", "ms", "cpuMs", "serverCpuMs"}` (opening the store is not timed). CPU
 * time does not depend on how busy the machine is: `cpuMs` is this process (on PGlite, the
 * database too), `serverCpuMs` the Postgres backend's, read from /proc when the server is
 * on this machine (else null).
 */
import { readFileSync } from "node:fs";
import { limitHeapGrowth } from "@assay/core/heap";
import { selectForRun } from "@assay/pipeline";
import { openStore } from "@assay/store";
import { runnerOf } from "@assay/store/reports";
import { selectPerTask } from "@assay/test-support/per-task-selection";
import { timed } from "./bench-util.js";

// The heap settings of `assay`, which runs selection when a run completes.
limitHeapGrowth();

const [mode, runId, maxTasks, where, schema] = process.argv.slice(2) as string[];
// One connection, so the one backend does all of the pass's database work.
const store = await openStore(
  where?.startsWith("postgres") === true
    ? { databaseUrl: where, ...(schema !== undefined && { schema }), poolSize: 1 }
    : { dataDir: where as string, create: false },
);
const query = { verifierScorer: "judge", checkScorer: "exact" };
try {
  const backend = await backendPid();
  const cpuBefore = process.cpuUsage();
  const serverBefore = backendCpuMs(backend);
  const { ms, value: tasks } = await timed(async () =>
    mode === "new"
      ? (await selectForRun(store, runId as string, query)).tasks
      : selectPerTask(store, runId as string, { ...query, maxTasks: Number(maxTasks) }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  const serverAfter = backendCpuMs(backend);
  const serverCpuMs =
    serverBefore === null || serverAfter === null ? null : serverAfter - serverBefore;
  console.log(JSON.stringify({ tasks, ms, cpuMs: (cpu.user + cpu.system) / 1000, serverCpuMs }));
} finally {
  await store.close();
}

async function backendPid(): Promise<number | null> {
  if (store.driver.kind !== "postgres") return null;
  const { rows } = await runnerOf(store.driver).query<{ pid: number }>(
    "SELECT pg_backend_pid() AS pid",
  );
  return rows[0]?.pid ?? null;
}

/** utime + stime of a local process, in ms (Linux clock ticks are 10 ms). */
function backendCpuMs(pid: number | null): number | null {
  if (pid === null) return null;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}
