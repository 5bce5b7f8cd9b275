import type { ScoreRow } from "@assay/core";
import type { Store } from "@assay/store";
import { driverOf } from "@assay/store/driver";
import { runnerOf } from "@assay/store/reports";
import { insertCandidateSamples } from "./candidate-samples.js";

export interface CandidateSpec {
  label?: boolean;
  /** Verifier ("judge") value, or an unscored reason. */
  judge: number | string;
  distribution?: number[];
  /** Deterministic check ("exact") value, or an unscored reason. */
  exact?: number | string;
  /** Verifier input tokens after fitting, and tokens fitting dropped. */
  input?: number;
  dropped?: number;
}

/**
 * The hand-made run every report test uses; the expected numbers are worked out in
 * store-reports.test.ts next to each assertion.
 */
export const TASKS: Record<string, CandidateSpec[]> = {
  A: [
    {
      label: false,
      judge: 0.2,
      distribution: [0.5, 0.3, 0.2],
      exact: "unparseable",
      input: 3000,
      dropped: 1000,
    },
    { label: true, judge: 0.9, distribution: [0.1, 0.5, 0.4] },
    { label: false, judge: 0.5, distribution: [0.2, 0.4, 0.4] },
  ],
  B: [
    { label: true, judge: 0.7 },
    { label: false, judge: 0.7 },
    { label: false, judge: 0.1 },
  ],
  C: [
    { judge: 0.8, exact: 0 },
    { judge: 0.3, exact: 0 },
    { judge: 0.6, exact: 1 },
  ],
  D: [
    { label: false, judge: "overflow", input: 8000, dropped: 2000 },
    { label: false, judge: 0.4 },
  ],
};

/**
 * Five tasks whose first candidate is right and second wrong. In B and D the verifier
 * overflowed on both candidates; elsewhere it prefers the wrong one.
 */
export const OVERFLOWING_TASKS: Record<string, CandidateSpec[]> = Object.fromEntries(
  ["A", "B", "C", "D", "E"].map((task) => [
    task,
    task === "B" || task === "D"
      ? [
          { label: true, judge: "overflow" },
          { label: false, judge: "overflow" },
        ]
      : [
          { label: true, judge: 0.2 },
          { label: false, judge: 0.8 },
        ],
  ]),
);

export async function seedRun(
  store: Store,
  runId: string,
  tasks: Record<string, CandidateSpec[]>,
  options: { name?: string; usage?: boolean } = {},
): Promise<void> {
  // Selected by the judge, as a spec with a selection section asks: the pick decides solved.
  const spec = { rules: [], selection: { verifier: "judge", check: "exact", threshold: 0.5 } };
  await store.startRun({ id: runId, name: options.name ?? null, spec, transport: "local" });
  const entries = await insertCandidateSamples(store, runId, tasks);
  await store.writeScores(
    entries.flatMap(({ id, candidate: spec }) => [
      scoreRow(runId, id, "judge", spec.judge, spec.distribution),
      ...(spec.exact === undefined ? [] : [scoreRow(runId, id, "exact", spec.exact)]),
    ]),
  );
  if (options.usage === false) return;
  const runner = runnerOf(driverOf(store));
  for (const { id, candidate: spec } of entries) {
    await runner.query(
      `INSERT INTO usage (run_id, sample_id, role, model, input_tokens, cached_input_tokens, output_tokens, compute_ms, device, scorer)
       VALUES ($1, $2, 'generator', 'gen', 1000, 0, 500, NULL, NULL, ''),
              ($1, $2, 'verifier', 'judge-model', $3, 0, 0, 100, 'cuda:0', 'judge')`,
      [runId, id, spec.input ?? 300],
    );
    // Like the pipeline: one truncations row per verifier call, cut or not.
    const dropped = spec.dropped ?? 0;
    const kept = spec.input ?? 300;
    await runner.query(
      `INSERT INTO truncations (run_id, sample_id, scorer, original_tokens, kept_tokens, dropped_tokens, slot, policy)
       VALUES ($1, $2, 'judge', $3, $4, $5, $6, 'keep-answer-tail')`,
      [runId, id, kept + dropped, kept, dropped, dropped > 0 ? "answer" : ""],
    );
  }
}

function scoreRow(
  runId: string,
  sampleId: string,
  scorer: string,
  outcome: number | string,
  distribution?: number[],
): ScoreRow {
  const isScored = typeof outcome === "number";
  return {
    runId,
    sampleId,
    scorer,
    criterion: "",
    repetition: 0,
    rule: "default",
    status: isScored ? "scored" : "unscored",
    value: isScored ? outcome : null,
    reason: isScored ? null : outcome,
    detail:
      distribution === undefined
        ? null
        : { criteria: [{ name: "c", variants: [{ variant: 0, distribution }] }] },
  };
}
