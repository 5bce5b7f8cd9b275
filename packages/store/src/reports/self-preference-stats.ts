import { type SelfPreference, type SelfPreferenceCell, selfPreference } from "@assay/core";
import type { SqlRunner } from "../sql-runner.js";
import { num } from "./group-by-run.js";
import { queryEachRun, type RunTableSet, type RunTables } from "./run-tables.js";

// Verifier scores that carry their model's `family`, on labelled answers whose generator
// model is stored (the generator's usage row: role generator, scorer ''). One row per
// distinct score, so the interval can resample answers without a row per answer; ordered
// so that the means and the seeded resampling come out the same on every call, whatever
// the plan (a rollup written at completion equals the figure computed again from raw rows).
// One branch per run, on its own partitions (run-tables.ts).
const selfPreferenceCellsSql = (t: RunTables, runId: string) => `
  SELECT ${runId} AS run_id, s.scorer, s.detail->>'family' AS family, u.model AS generator, sa.label,
         s.value, count(*) AS n
  FROM ${t.scores} s
  JOIN ${t.samples} sa ON sa.run_id = s.run_id AND sa.sample_id = s.sample_id
  JOIN ${t.usage} u ON u.run_id = s.run_id AND u.sample_id = s.sample_id
    AND u.role = 'generator' AND u.scorer = ''
  WHERE s.status = 'scored' AND sa.label IS NOT NULL AND s.detail ? 'family'
  GROUP BY s.scorer, s.detail->>'family', u.model, sa.label, s.value`;

type Row = {
  run_id: string;
  scorer: string;
  family: string;
  generator: string;
  label: boolean;
  value: unknown;
  n: unknown;
};

/** Per run, the self-preference check of each verifier scorer that names its family. */
export async function selfPreferenceStats(
  runner: SqlRunner,
  tables: RunTableSet,
): Promise<Map<string, SelfPreference[]>> {
  const rows = await queryEachRun<Row>(
    runner,
    tables,
    selfPreferenceCellsSql,
    "run_id, scorer, family, generator, label, value",
  );
  const cells = new Map<string, Map<string, SelfPreferenceCell[]>>();
  for (const row of rows) {
    const byScorer = cells.get(row.run_id) ?? new Map<string, SelfPreferenceCell[]>();
    const key = JSON.stringify([row.scorer, row.family]);
    const list = byScorer.get(key) ?? [];
    list.push({
      generator: row.generator,
      label: row.label,
      value: num(row.value),
      answers: num(row.n),
    });
    byScorer.set(key, list);
    cells.set(row.run_id, byScorer);
  }
  return new Map(
    tables.runIds.map((runId) => [
      runId,
      [...(cells.get(runId) ?? new Map<string, SelfPreferenceCell[]>())]
        .map(([key, list]) => {
          const [scorer, family] = JSON.parse(key) as [string, string];
          return selfPreference(scorer, family, list);
        })
        .sort((a, b) => a.scorer.localeCompare(b.scorer) || a.family.localeCompare(b.family)),
    ]),
  );
}
