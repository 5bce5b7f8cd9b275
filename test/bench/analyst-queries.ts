import { readFileSync } from "node:fs";
import type { SqlRunner } from "@assay/store/reports";

/** The ready queries of docs/analyst-views.md, as written there (one source for both). */
export function readyQueries(): string[] {
  const text = readFileSync(new URL("../../docs/analyst-views.md", import.meta.url), "utf8");
  const section = text.slice(text.indexOf("## Ready queries"), text.indexOf("## Access"));
  return [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => (m[1] as string).trim());
}

/** Whether the query's plan reads the scores table (it should read rollups only). */
export async function planReadsScores(runner: SqlRunner, query: string): Promise<boolean> {
  const { rows } = await runner.query<Record<string, string>>(`EXPLAIN ${query}`);
  return rows.some((row) => /\bon scores\b|\bscores_pkey\b/i.test(Object.values(row)[0] ?? ""));
}

/** What the f1 pass-rate query costs without views or rollups: a scan of one run's scores. */
export const RAW_PASS_RATE = `
  SELECT run_id, count(*) FILTER (WHERE value >= 0.5) AS passed, count(value) AS scored
  FROM scores WHERE run_id = $1 GROUP BY run_id`;
