import type { SqlRunner } from "../sql-runner.js";
import { num } from "./group-by-run.js";

// samples_run_task_idx (run_id, task_id) covers both counts.
const TASK_COUNTS = `
  SELECT run_id, count(*) AS samples, count(DISTINCT task_id) AS tasks
  FROM samples WHERE run_id = ANY($1::text[]) GROUP BY run_id`;

export interface TaskCounts {
  samples: number;
  tasks: number;
}

export async function taskCounts(
  runner: SqlRunner,
  runIds: readonly string[],
): Promise<Map<string, TaskCounts>> {
  const { rows } = await runner.query<{ run_id: string; samples: unknown; tasks: unknown }>(
    TASK_COUNTS,
    [runIds],
  );
  return new Map(rows.map((r) => [r.run_id, { samples: num(r.samples), tasks: num(r.tasks) }]));
}
