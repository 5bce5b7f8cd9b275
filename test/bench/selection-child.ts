/**
 * One timed selection pass for `bench:selection`, in a process of its own so that its peak
 * RSS is its own: `selection-child.ts <new|old> <runId> <maxTasks> <postgres-url schema | pglite-dir>`.
 * Prints `{"tasks", "ms", "cpuMs", "serverCpuMs"}` (opening the store is not timed). CPU
 * time does not depend on how busy the machine is: `cpuMs` is this process (on PGlite, the
 * database too), `serverCpuMs` the Postgres backends' (the pass's own, and the ones it opens
 * to read and look up, gone by the end: the server counts their time as its children's),
 * read from /proc when the server is on this machine (else null). Whatever else the server
 * ran meanwhile (autovacuum) counts too.
 */
import { readFileSync } from "node:fs";
import { limitHeapGrowth } from "@assay/core/heap";
import { selectForRun } from "@assay/pipeline";
import { openStore } from "@assay/store";
import { driverOf } from "@assay/store/driver";
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
  const serverBefore = serverCpuMs(backend);
  const { ms, value: tasks } = await timed(async () =>
    mode === "new"
      ? (await selectForRun(store, runId as string, query)).tasks
      : selectPerTask(store, runId as string, { ...query, maxTasks: Number(maxTasks) }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  await passConnectionsGone();
  const serverAfter = serverCpuMs(backend);
  const serverCpu =
    serverBefore === null || serverAfter === null ? null : serverAfter - serverBefore;
  console.log(
    JSON.stringify({ tasks, ms, cpuMs: (cpu.user + cpu.system) / 1000, serverCpuMs: serverCpu }),
  );
} finally {
  await store.close();
}

async function backendPid(): Promise<number | null> {
  if (driverOf(store).kind !== "postgres") return null;
  const { rows } = await runnerOf(driverOf(store)).query<{ pid: number }>(
    "SELECT pg_backend_pid() AS pid",
  );
  return rows[0]?.pid ?? null;
}

/** Waits until the connections the pass opened have closed and their processes are reaped. */
async function passConnectionsGone(): Promise<void> {
  if (driverOf(store).kind !== "postgres") return;
  for (let tries = 0; tries < 100; tries += 1) {
    const { rows } = await runnerOf(driverOf(store)).query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'assay selection:%'",
    );
    if (rows[0]?.n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
}

/**
 * utime + stime of the backend, plus the time of the server's processes that have exited
 * (its parent's cutime + cstime), in ms (Linux clock ticks are 10 ms).
 */
function serverCpuMs(pid: number | null): number | null {
  if (pid === null) return null;
  try {
    const own = statFields(pid);
    const server = statFields(Number(own[1]));
    return (Number(own[11]) + Number(own[12]) + Number(server[13]) + Number(server[14])) * 10;
  } catch {
    return null;
  }
}

/** /proc/<pid>/stat from its third field (state) on. */
function statFields(pid: number): string[] {
  return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
}
