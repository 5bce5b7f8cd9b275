import {
  type JobResult,
  RunSpecSchema,
  type Sample,
  type Score,
  type ScoreJob,
  type ScorerRef,
  scored,
  unscored,
} from "@assay/core";
import { pairPrompts } from "@assay/selection";
import type { Store } from "@assay/store";
import fc from "fast-check";
import { completeRun } from "../../src/index.js";
import { jobResultOf } from "../../src/run/job-result.js";

// Runs as the pipeline would have stored them, drawn at random: tasks of zero to many
// candidates, labels present or missing, a verifier of C criteria × K variants (probe or
// distribution head) whose values tie often, overflows refused, prompts cut, trajectories,
// a deterministic check scorer, generators of several families. Stored through the same
// row builder (`jobResultOf`) and completion (`completeRun`) a real run uses.

export const VERIFIER = "verifier";
/** The pairwise judge's scorer key. */
export const JUDGE = "pair";
export const CHECK = "exact";
export const FAMILY = "fam-a";
const GENERATORS = ["fam-a-large", "fam-b-small", "other-7b"] as const;
const GRID = [0, 0.25, 0.5, 0.75, 1] as const;
const PROMPT_TOKENS = [100, 700, 3000, 9000] as const;

export interface DrawnVerdict {
  /** Per criterion, per variant: the value (probe) or the G-level distribution. */
  prompts: { value: number; distribution: number[] | null }[][];
  /** A prompt that had to be cut: index into the flattened prompts, and how much. */
  cut: { prompt: number; share: number } | null;
  progress: (number | null)[] | null;
}

export interface DrawnCandidate {
  label: boolean | null;
  /** null: the verifier refused the call (the answer did not fit: overflow). */
  verdict: DrawnVerdict | null;
  /** The check scorer's value, or its unscored reason. */
  check: number | "unparseable";
  generator: (typeof GENERATORS)[number];
  promptTokens: (typeof PROMPT_TOKENS)[number];
  cachedShare: number;
  /** Generator input tokens written to a prompt cache (priced apart from the input). */
  cacheWrites: number;
  kind: "math" | "prose" | null;
}

/** The spec's `pass` section: thresholds and the scorer deciding solved tasks. */
export interface DrawnPass {
  threshold: number;
  /** Per scorer key; the check scorer is left out when selection checks with it. */
  scorers: Record<string, number>;
  solvedBy: string | null;
}

export interface DrawnRun {
  /** Whether the spec has a selection section; without one the pass rule decides solved. */
  selection: boolean;
  /**
   * Whether the spec lists `kind` in `fields.metadata`: then `--by metadata.kind` reads the
   * run's slice rollups, else its raw rows (both must give the figures the export gives).
   */
  declaresKind: boolean;
  /** null: the spec has no `pass` section (every scorer passes at 0.5). */
  pass: DrawnPass | null;
  head: "probe" | "distribution";
  criteria: string[];
  variants: number;
  method: "best_of_n" | "pivot_tournament";
  withCheck: boolean;
  /** Samples of this kind are routed to the check scorer only (never verified). */
  unverifiedKind: "math" | null;
  /**
   * A pairwise judge (pivot tournament only): its answers to the planned pair prompts, in
   * turn; null leaves the prompt unscored, "missing" stores nothing for it.
   */
  judge: (number | null | "missing")[] | null;
  tasks: DrawnCandidate[][];
}

const distribution = fc
  .array(fc.integer({ min: 0, max: 4 }), { minLength: 3, maxLength: 3 })
  .map((weights) => {
    const total = weights.reduce((a, b) => a + b, 0);
    return total === 0 ? [1, 0, 0] : weights.map((w) => w / total);
  });

function verdictOf(run: { head: DrawnRun["head"]; criteria: string[]; variants: number }) {
  type Prompt = { value: number; distribution: number[] | null };
  const prompt: fc.Arbitrary<Prompt> =
    run.head === "probe"
      ? fc.constantFrom<number>(...GRID).map((value) => ({ value, distribution: null }))
      : distribution.map((d) => ({ value: expectedLevel(d), distribution: d }));
  const prompts = fc.array(fc.array(prompt, { minLength: run.variants, maxLength: run.variants }), {
    minLength: run.criteria.length,
    maxLength: run.criteria.length,
  });
  const promptCount = run.criteria.length * run.variants;
  return fc.record({
    prompts,
    cut: fc.option(
      fc.record({
        prompt: fc.integer({ min: 0, max: promptCount - 1 }),
        share: fc.constantFrom(0.1, 0.5),
      }),
      { freq: 3 },
    ),
    progress: fc.option(
      fc.array(fc.option(fc.constantFrom(...GRID, 0.9, 0.8, 0.7, 0.6), { freq: 8 }), {
        minLength: 2,
        maxLength: 7,
      }),
      { freq: 2 },
    ),
  });
}

/** The scale's expected level on [0, 1], as a distribution head scores (worst level first). */
function expectedLevel(d: readonly number[]): number {
  return d.reduce((sum, p, level) => sum + (p * level) / (d.length - 1), 0);
}

const THRESHOLDS = [0.25, 0.5, 0.75, 1] as const;

const drawnPass = fc.record({
  threshold: fc.constantFrom(...THRESHOLDS),
  verifier: fc.option(fc.constantFrom(...THRESHOLDS), { freq: 2 }),
  check: fc.option(fc.constantFrom(...THRESHOLDS), { freq: 2 }),
  solvedBy: fc.constantFrom<string | null>(null, null, VERIFIER, CHECK),
});

export const drawnRun: fc.Arbitrary<DrawnRun> = fc
  .record({
    selection: fc.boolean(),
    declaresKind: fc.boolean(),
    pass: fc.option(drawnPass, { freq: 2 }),
    head: fc.constantFrom("probe" as const, "distribution" as const),
    criteria: fc.constantFrom<string[]>(
      ["default"],
      ["correct"],
      ["correct", "clear"],
      ["a", "b", "c"],
    ),
    variants: fc.integer({ min: 1, max: 3 }),
    method: fc.constantFrom("best_of_n" as const, "pivot_tournament" as const),
    withCheck: fc.boolean(),
    unverifiedKind: fc.constantFrom("math" as const, null, null),
    judge: fc.option(
      fc.array(
        fc.constantFrom<number | null | "missing">(0.2, 0.5, 0.8, 0.9, 0.3, null, "missing"),
        {
          minLength: 64,
          maxLength: 64,
        },
      ),
      { freq: 2 },
    ),
  })
  .map(({ pass, ...shape }) => {
    // The selection's check scorer passes by `selection.threshold`: the spec may not name it.
    const checkNamed = pass?.check != null && !(shape.selection && shape.withCheck);
    return {
      ...shape,
      pass:
        pass === null
          ? null
          : {
              threshold: pass.threshold,
              scorers: {
                ...(pass.verifier !== null && { [VERIFIER]: pass.verifier }),
                ...(checkNamed && { [CHECK]: pass.check as number }),
              },
              solvedBy: pass.solvedBy,
            },
      judge: shape.selection && shape.method === "pivot_tournament" ? shape.judge : null,
    };
  })
  .chain((shape) => {
    const candidate: fc.Arbitrary<DrawnCandidate> = fc.record({
      label: fc.option(fc.boolean(), { freq: 4 }),
      verdict: fc.option(verdictOf(shape), { freq: 6 }),
      check: fc.oneof(fc.constantFrom(0, 1), fc.constant("unparseable" as const)),
      generator: fc.constantFrom(...GENERATORS),
      promptTokens: fc.constantFrom(...PROMPT_TOKENS),
      cachedShare: fc.constantFrom(0, 0, 0.5),
      cacheWrites: fc.constantFrom(0, 0, 40, 1500),
      kind: fc.constantFrom("math" as const, "prose" as const, null),
    });
    const task = fc.oneof(
      { arbitrary: fc.array(candidate, { minLength: 1, maxLength: 1 }), weight: 1 },
      { arbitrary: fc.array(candidate, { minLength: 2, maxLength: 5 }), weight: 3 },
    );
    return fc.array(task, { minLength: 0, maxLength: 12 }).map((tasks) => ({ ...shape, tasks }));
  });

export function specOf(run: DrawnRun, name: string) {
  return RunSpecSchema.parse({
    name,
    default: { scorers: [{ name: VERIFIER }, { name: CHECK }] },
    ...(run.declaresKind && { fields: { metadata: ["kind"] } }),
    ...(run.selection && {
      selection: {
        verifier: VERIFIER,
        method: run.method,
        k: 2,
        ...(run.withCheck && { check: CHECK }),
        ...(run.judge !== null && { judge: { name: "pairwise", key: JUDGE } }),
      },
    }),
    ...(run.pass !== null && {
      pass: {
        threshold: run.pass.threshold,
        scorers: run.pass.scorers,
        ...(run.pass.solvedBy !== null && { solved_by: run.pass.solvedBy }),
      },
    }),
  });
}

/** Stores the drawn run and completes it (selection and rollups), as `assay run` does. */
export async function storeDrawnRun(
  store: Store,
  runId: string,
  run: DrawnRun,
  name = "nightly",
): Promise<void> {
  const spec = specOf(run, name);
  await store.startRun({ id: runId, name, dataset: null, spec, transport: "local" });
  const samples = run.tasks.flatMap((task, t) =>
    task.map((candidate, index) => sampleOf(t, index, candidate)),
  );
  await store.insertSamples(runId, samples);
  const results: JobResult[] = [];
  for (const sample of samples) {
    const candidate = run.tasks[sample.line - 1]?.[sample.candidateIndex] as DrawnCandidate;
    if (candidate.kind === null || candidate.kind !== run.unverifiedKind) {
      const job = jobOf(runId, sample, { name: VERIFIER, args: {} });
      results.push(jobResultOf(job, verifierScore(run, candidate)));
    }
    results.push(
      jobResultOf(jobOf(runId, sample, { name: CHECK, args: {} }), checkScore(candidate)),
    );
  }
  if (run.judge !== null) results.push(...judgeResults(runId, run.judge, samples));
  await store.writeResults(results);
  const modelResults = results.filter((r) => r.score.scorer !== CHECK).length;
  await store.setPlanned(runId, { results: results.length, modelResults });
  await completeRun(store, runId);
}

/** The judge's results for every pair prompt the pipeline plans (both orders of each pair). */
function judgeResults(
  runId: string,
  answers: readonly (number | null | "missing")[],
  samples: readonly Sample[],
): JobResult[] {
  const results: JobResult[] = [];
  let turn = 0;
  const byTask = new Map<string, Sample[]>();
  for (const s of samples) byTask.set(s.taskId, [...(byTask.get(s.taskId) ?? []), s]);
  for (const [taskId, candidates] of byTask) {
    const indices = candidates.map((c) => c.candidateIndex);
    for (const prompt of pairPrompts(taskId, indices, { k: 2, seed: 0 })) {
      const answer = answers[turn++ % answers.length];
      if (answer === "missing" || answer === undefined) continue;
      const sample = {
        ...(candidates[0] as Sample),
        id: prompt.sampleId,
        candidateIndex: prompt.first,
      };
      const kept = answer === null ? 0 : 400;
      const calls = {
        truncations: [
          {
            criterion: "",
            variant: 0,
            originalTokens: 400,
            keptTokens: kept,
            droppedTokens: 400 - kept,
            slot: answer === null ? "answer_b" : null,
            policy: "error",
          },
        ],
        usage: {
          model: "judge-0.6b",
          device: "cpu",
          inputTokens: kept,
          outputTokens: 0,
          computeMs: 2,
          prompts: kept === 0 ? 0 : 1,
          forwardPasses: kept === 0 ? 0 : 0.25,
        },
      };
      const score: Score =
        answer === null
          ? { ...unscored("overflow", "the two answers do not fit"), calls }
          : { ...scored(answer), calls };
      const job = jobOf(runId, sample, { name: "pairwise", args: {}, key: JUDGE });
      results.push(jobResultOf(job, score));
    }
  }
  return results;
}

function sampleOf(task: number, index: number, candidate: DrawnCandidate): Sample {
  return {
    id: `t${task}#${index}`,
    taskId: `t${task}`,
    candidateIndex: index,
    question: "q",
    answer: `a${index}`,
    ...(candidate.label !== null && { label: candidate.label }),
    metadata: candidate.kind === null ? {} : { kind: candidate.kind },
    generator: {
      model: candidate.generator,
      input_tokens: 200 + index,
      output_tokens: 50 + task,
      cached_input_tokens: 0,
      cache_write_tokens: candidate.cacheWrites,
      // Every other candidate wrote part of its cache for an hour (priced at its own rate).
      cache_write_1h_tokens: index % 2 === 1 ? Math.floor(candidate.cacheWrites / 3) : 0,
    },
    line: task + 1,
  };
}

function jobOf(runId: string, sample: Sample, scorer: ScorerRef): ScoreJob {
  return { runId, pool: "cpu", rule: "default", scorer, sample };
}

function checkScore(candidate: DrawnCandidate): Score {
  return candidate.check === "unparseable" ? unscored("unparseable") : scored(candidate.check);
}

/** What the verifier scorer returns for the candidate: its value, detail and calls. */
function verifierScore(run: DrawnRun, candidate: DrawnCandidate): Score {
  const prompts = run.criteria.flatMap((criterion) =>
    Array.from({ length: run.variants }, (_, variant) => ({ criterion, variant })),
  );
  const verdict = candidate.verdict;
  const truncations = prompts.map(({ criterion, variant }, i) => {
    const original = candidate.promptTokens + i;
    const refused = verdict === null;
    const dropped = refused
      ? original
      : verdict.cut?.prompt === i
        ? Math.max(1, Math.round(original * verdict.cut.share))
        : 0;
    return {
      // A single-criterion scorer keys its truncation rows like its score row ("").
      criterion: run.criteria.length === 1 ? "" : criterion,
      variant,
      originalTokens: original,
      keptTokens: original - dropped,
      droppedTokens: dropped,
      slot: dropped > 0 ? (refused ? "answer" : "question") : null,
      policy: refused ? "refused" : "error",
    };
  });
  const computed = truncations.reduce((sum, t) => sum + t.keptTokens, 0);
  const cached = Math.floor(computed * candidate.cachedShare);
  const calls = {
    truncations,
    usage: {
      model: "judge-0.6b",
      device: "cpu",
      inputTokens: computed - cached,
      cachedInputTokens: cached,
      outputTokens: 0,
      computeMs: prompts.length * 3,
      prompts: verdict === null ? 0 : prompts.length,
      // Its share of batched passes: two prompts a pass.
      forwardPasses: verdict === null ? 0 : prompts.length / 2,
    },
  };
  const criteria = run.criteria.map((name, c) => {
    const variants = (verdict?.prompts[c] ?? []).map((p, variant) => ({
      variant,
      value: p.value,
      ...(p.distribution !== null && { distribution: p.distribution }),
    }));
    return { name, value: verdict === null ? null : mean(variants.map((v) => v.value)), variants };
  });
  const detail = {
    head: run.head,
    family: FAMILY,
    criteria,
    ...(verdict?.progress != null && { progress: verdict.progress }),
  };
  if (verdict === null)
    return { ...unscored("overflow", "the answer does not fit", detail), calls };
  // As the verifier does: the plain mean of every prompt's value, criterion-major.
  const value = mean(verdict.prompts.flat().map((p) => p.value));
  return { ...scored(Math.min(1, Math.max(0, value)), detail), calls };
}

function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}
