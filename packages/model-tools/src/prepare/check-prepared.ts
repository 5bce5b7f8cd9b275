import type { Sample, Score } from "@assay/core";
import {
  createVerifierScorer,
  type LoadModelOptions,
  loadModel,
  ModelFolderError,
  type VerifierDetail,
  type VerifierModel,
} from "@assay/verifier";
import { fillerText } from "../check/filler.js";

export interface CheckPreparedOptions extends LoadModelOptions {
  /** Question lengths to try, in tokens (the fit cuts what does not fit). Default 500, 2000, 2100, 4000, 8000. */
  lengths?: number[];
  /** Two different answers. Default "C. Allomone" and "B. Pheromone". */
  answers?: [string, string];
  /** Largest |Δ| allowed between the two graphs' values. Default 1e-5. */
  tolerance?: number;
}

export interface PreparedCheckRow {
  /** Question length in tokens. */
  length: number;
  passed: boolean;
  /** Largest |Δ| over the final scores, every prompt's value and its scale mass. */
  maxDelta: number;
  /** Bytes of output tensor per row onnxruntime returned, for each graph. */
  originalBytesPerRow: number;
  preparedBytesPerRow: number;
  detail: string;
}

/**
 * Scores the same samples with a prepared graph and its original, through the same loader,
 * fit, batcher and head code: the values must agree within `tolerance`, and each row's
 * output bytes show what the preparation saves.
 */
export async function checkPrepared(
  prepared: string,
  original: string,
  options: CheckPreparedOptions = {},
): Promise<PreparedCheckRow[]> {
  const before = await loadModel(original, options);
  let after: VerifierModel | undefined;
  try {
    after = await loadModel(prepared, options);
    if (!after.prepared) {
      throw new ModelFolderError(prepared, "is not a prepared graph (run assay model prepare)");
    }
    if (before.prepared) {
      throw new ModelFolderError(original, "is prepared too; pass the original export");
    }
    const rows: PreparedCheckRow[] = [];
    for (const length of options.lengths ?? [500, 2000, 2100, 4000, 8000]) {
      rows.push(await checkLength(before, after, length, options));
    }
    return rows;
  } finally {
    await Promise.all([before.close(), after?.close()]);
  }
}

async function checkLength(
  original: VerifierModel,
  prepared: VerifierModel,
  length: number,
  options: CheckPreparedOptions,
): Promise<PreparedCheckRow> {
  const question = fillerText(original.tokenizer, length);
  const answers = options.answers ?? ["C. Allomone", "B. Pheromone"];
  const samples = answers.map((answer, i) => sampleOf(question, answer, i));
  const a = await scoreAll(original, samples);
  const b = await scoreAll(prepared, samples);
  const mismatch = a.scores.findIndex((score, i) => !sameOutcome(score, b.scores[i]));
  const maxDelta = Math.max(...a.scores.map((score, i) => largestDelta(score, b.scores[i])));
  const tolerance = options.tolerance ?? 1e-5;
  const passed = mismatch < 0 && maxDelta <= tolerance;
  const detail =
    mismatch >= 0
      ? `answer ${mismatch + 1}: ${outcome(a.scores[mismatch])} (original) vs ${outcome(b.scores[mismatch])} (prepared)`
      : `max |Δ| ${maxDelta.toExponential(1)} (limit ${tolerance.toExponential(0)}) over ${a.scores.length} scores`;
  return {
    length,
    passed,
    maxDelta,
    originalBytesPerRow: a.bytesPerRow,
    preparedBytesPerRow: b.bytesPerRow,
    detail,
  };
}

async function scoreAll(
  model: VerifierModel,
  samples: Sample[],
): Promise<{ scores: Score[]; bytesPerRow: number }> {
  const start = model.outputTotals();
  const scorer = createVerifierScorer(model, { model: model.name });
  const scores = await Promise.all(samples.map((s) => scorer(s, {})));
  const end = model.outputTotals();
  const rows = end.rows - start.rows;
  return { scores, bytesPerRow: rows === 0 ? 0 : (end.bytes - start.bytes) / rows };
}

function sameOutcome(a: Score, b: Score | undefined): boolean {
  if (b === undefined || a.status !== b.status) return false;
  return a.status === "scored" || (b.status === "unscored" && a.reason === b.reason);
}

function outcome(score: Score | undefined): string {
  if (score === undefined) return "missing";
  return score.status === "scored" ? `scored ${score.value}` : `unscored (${score.reason})`;
}

/** |Δ| of the final value and of each prompt's value and mass. */
function largestDelta(a: Score, b: Score | undefined): number {
  if (b === undefined) return Number.POSITIVE_INFINITY;
  const pairs: [number | null | undefined, number | null | undefined][] = [];
  if (a.status === "scored" && b.status === "scored") pairs.push([a.value, b.value]);
  const left = (a.detail as VerifierDetail | undefined)?.criteria ?? [];
  const right = (b.detail as VerifierDetail | undefined)?.criteria ?? [];
  left.forEach((criterion, c) => {
    criterion.variants.forEach((variant, v) => {
      const other = right[c]?.variants[v];
      pairs.push([variant.value, other?.value], [variant.mass, other?.mass]);
    });
  });
  let largest = 0;
  for (const [x, y] of pairs) {
    if ((x ?? null) === null && (y ?? null) === null) continue;
    if (typeof x !== "number" || typeof y !== "number") return Number.POSITIVE_INFINITY;
    largest = Math.max(largest, Math.abs(x - y));
  }
  return largest;
}

function sampleOf(question: string, answer: string, index: number): Sample {
  return {
    id: `check-prepared-${index}`,
    taskId: "check",
    candidateIndex: index,
    question,
    answer,
    metadata: {},
    line: 0,
  };
}
