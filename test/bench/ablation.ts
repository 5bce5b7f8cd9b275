/**
 * Selection ablation benchmark:
 *   node --conditions=@assay/source --import tsx test/bench/ablation.ts [--tasks N]
 * Postgres, one run of N tasks (default 20,000) × 4 candidates scored by a verifier with
 * 3 criteria × 4 variants, each row's detail keeping its G = 20 distributions as the
 * verifier stores them. Median of 3 of `selectionAblation` (3 criteria alone + K = 1..4 +
 * the full mean: 8 re-selections) against the baseline measured in the same run:
 * `selectForRun` on the same data (one selection, which also writes its rows).
 */

import { parseArgs } from "node:util";
import type { Sample, ScoreRow } from "@assay/core";
import { selectForRun, selectionAblation } from "@assay/pipeline";
import { openStore } from "@assay/store";
import { DATABASE_URL } from "@assay/test-support/database-url";
import pg from "pg";
import { fmt, median, timed } from "./bench-util.js";

const SCHEMA = "assay_bench_ablation";
const CANDIDATES = 4;
const CRITERIA = ["spec", "output", "errors"];
const VARIANTS = 4;
const G = 20;
const REPEATS = 3;

const { values: flags } = parseArgs({ options: { tasks: { type: "string" } } });
const TASKS = Number(flags.tasks ?? 20_000);

const admin = new pg.Client({ connectionString: DATABASE_URL });
await admin.connect();
await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
const store = await openStore({ databaseUrl: DATABASE_URL, schema: SCHEMA, migrate: true });
try {
  const seeded = await timed(seed);
  console.log(`seeded ${fmt(TASKS * CANDIDATES)} verifier rows in ${fmt(seeded.ms / 1000, 1)} s`);
  await admin.query(`VACUUM ANALYZE ${SCHEMA}.scores, ${SCHEMA}.samples`);
  const detailBytes = await admin.query(
    `SELECT avg(pg_column_size(detail))::int AS bytes FROM ${SCHEMA}.scores`,
  );
  console.log(
    `stored detail per row: ${detailBytes.rows[0].bytes} bytes (jsonb, as the verifier writes it)`,
  );
  const selection: number[] = [];
  const ablation: number[] = [];
  for (let i = 0; i < REPEATS; i += 1) {
    selection.push(
      (await timed(() => selectForRun(store, "bench", { verifierScorer: "judge" }))).ms,
    );
    ablation.push((await timed(() => selectionAblation(store, "bench"))).ms);
  }
  const base = median(selection);
  const abl = median(ablation);
  console.log(`selectForRun (baseline, 1 selection + writes): median ${fmt(base)} ms`);
  console.log(`selectionAblation (8 re-selections, read only): median ${fmt(abl)} ms`);
  console.log(
    `ratio ablation / selection: ${fmt(abl / base, 2)} (noisy shared machine: a ratio, not a figure to quote alone)`,
  );
} finally {
  await store.close();
  await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await admin.end();
}

async function seed(): Promise<void> {
  await store.startRun({
    id: "bench",
    spec: {
      rules: [],
      selection: { verifier: "judge", method: "best_of_n", k: 3, threshold: 0.5 },
    },
    transport: "local",
  });
  let seedState = 1;
  const random = () => {
    seedState = (seedState * 48271) % 2147483647;
    return seedState / 2147483647;
  };
  const BATCH = 500;
  for (let start = 0; start < TASKS; start += BATCH) {
    const samples: Sample[] = [];
    const scores: ScoreRow[] = [];
    for (let t = start; t < Math.min(TASKS, start + BATCH); t += 1) {
      for (let c = 0; c < CANDIDATES; c += 1) {
        const id = `t${t}#${c}`;
        samples.push({
          id,
          taskId: `t${t}`,
          candidateIndex: c,
          question: "q",
          answer: "a",
          metadata: {},
          line: t + 1,
          label: random() < 0.4,
        });
        scores.push(scoreRow(id, random));
      }
    }
    await store.insertSamples("bench", samples);
    await store.writeScores(scores);
  }
}

function scoreRow(sampleId: string, random: () => number): ScoreRow {
  const criteria = CRITERIA.map((name) => {
    const variants = Array.from({ length: VARIANTS }, (_, variant) => {
      const raw = Array.from({ length: G }, () => random());
      const total = raw.reduce((a, b) => a + b, 0);
      const distribution = raw.map((p) => p / total);
      const value = distribution.reduce((sum, p, g) => sum + (p * g) / (G - 1), 0);
      return { variant, value, mass: 0.9, distribution };
    });
    return { name, value: variants.reduce((s, v) => s + v.value, 0) / VARIANTS, variants };
  });
  const values = criteria.flatMap((c) => c.variants.map((v) => v.value));
  return {
    runId: "bench",
    sampleId,
    scorer: "judge",
    criterion: "",
    repetition: 0,
    rule: "default",
    status: "scored",
    value: values.reduce((a, b) => a + b, 0) / values.length,
    reason: null,
    detail: { head: "distribution", criteria },
  };
}
