import type { Sample } from "@assay/core";
import {
  createVerifierScorer,
  fitPrompt,
  type LoadModelOptions,
  loadModel,
  type PromptPiece,
  resolvePrompt,
  scorePosition,
  type VerifierModel,
} from "@assay/verifier";
import { pieceText, promptFormat } from "@assay/verifier/tooling";
import { checkPairwiseLength } from "./check-pairwise.js";
import { fillerText } from "./filler.js";

export type CheckName =
  | "answer survives"
  | "distinct answers"
  | "fit untouched"
  | "score position"
  | "pairwise answers survive";

export interface CheckRow {
  check: CheckName;
  /** Target length of the plainly filled input, in tokens. */
  length: number;
  passed: boolean;
  detail: string;
}

export interface CheckModelOptions extends LoadModelOptions {
  /** Input lengths to try, in tokens. Default 500, 2000, 2100, 4000, 8000. */
  lengths?: number[];
  /** Two different answers. Default "C. Allomone" and "B. Pheromone". */
  answers?: [string, string];
}

/**
 * The three checks of docs/architecture.md ("Fit: never cut the answer") on any verifier:
 * (1) the answer and the final question survive at every length, (2) different answers give different input ids and scores, (3) inputs
 * that fit are untouched (and inputs that do not lose only the question's tail); plus the
 * token the head reads, which must be the prompt's last, not an appended EOS or SEP. A
 * model with a pairwise judge is checked for both answers surviving too.
 */
export async function checkModel(
  model: string | VerifierModel,
  options: CheckModelOptions = {},
): Promise<CheckRow[]> {
  const loaded = typeof model === "string" ? await loadModel(model, options) : model;
  try {
    const rows: CheckRow[] = [];
    const answers = options.answers ?? ["C. Allomone", "B. Pheromone"];
    for (const length of options.lengths ?? [500, 2000, 2100, 4000, 8000]) {
      rows.push(...(await checkLength(loaded, length, answers)));
      rows.push(...checkPairwiseLength(loaded, length, answers));
    }
    return rows;
  } finally {
    if (typeof model === "string") await loaded.close();
  }
}

async function checkLength(
  model: VerifierModel,
  length: number,
  answers: [string, string],
): Promise<CheckRow[]> {
  const resolve = resolverOf(model);
  const overhead = plainTokens(model, resolve("", answers[0]));
  const question = fillerText(model.tokenizer, Math.max(1, length - overhead));
  const samples = answers.map((answer, i) => sampleOf(question, answer, i));
  const pieces = samples.map((s) => resolve(s.question, s.answer));
  const fits = pieces.map((p) =>
    fitPrompt(
      model.tokenizer,
      p,
      { maxLength: model.config.max_length, margin: model.config.margin, policy: "error" },
      model.chat,
    ),
  );
  const [fitA, fitB] = fits;
  const [piecesA] = pieces;
  if (fitA === undefined || fitB === undefined || piecesA === undefined)
    throw new Error("unreachable");
  if (!fitA.ok || !fitB.ok) {
    const message = !fitA.ok ? fitA.message : !fitB.ok ? fitB.message : "";
    const checks = ["answer survives", "distinct answers", "fit untouched", "score position"];
    return (checks as CheckName[]).map((check) => ({
      check,
      length,
      passed: false,
      detail: `refused: ${message}`,
    }));
  }
  const scorer = createVerifierScorer(model, { model: model.name });
  const scores = await Promise.all(samples.map((s) => scorer(s, {})));
  const values = scores.map((s) => (s.status === "scored" ? s.value : null));
  const kept = `${fitA.ids.length} of ${fitA.record.originalTokens} tokens sent`;

  const finalText = lastText(piecesA);
  const survives = fits.every(
    (f, i) => f.ok && includesAll(model.tokenizer.decode(f.ids), [answers[i] ?? "", finalText]),
  );
  const sameIds =
    fitA.ids.length === fitB.ids.length && fitA.ids.every((id, i) => id === fitB.ids[i]);
  const distinct = !sameIds && values[0] !== null && values[1] !== null && values[0] !== values[1];
  const untouched = checkUntouched(model, piecesA, fitA.text, fitA.ids);
  return [
    {
      check: "answer survives",
      length,
      passed: survives,
      detail: `${kept}; answer and final question ${survives ? "present" : "MISSING"} after decoding`,
    },
    {
      check: "distinct answers",
      length,
      passed: distinct,
      detail: `input ids ${sameIds ? "IDENTICAL" : "differ"}; scores ${values.map((v) => (v === null ? "unscored" : v.toFixed(6))).join(" vs ")}`,
    },
    { check: "fit untouched", length, passed: untouched.passed, detail: untouched.detail },
    { check: "score position", length, ...checkScorePosition(model, fitA) },
  ];
}

/**
 * Which token the head reads: it must be the last token of the prompt text itself (with a
 * chat template, the generation prompt's last, where the assistant's first token goes).
 */
function checkScorePosition(
  model: VerifierModel,
  fit: { text: string; ids: number[] },
): { passed: boolean; detail: string } {
  const tokenizer = model.tokenizer;
  const position =
    model.chat === null ? scorePosition(tokenizer, fit.ids) : Math.max(0, fit.ids.length - 1);
  const read = fit.ids[position] ?? -1;
  const passed = read === tokenizer.encode(fit.text, false).at(-1);
  const token = (id: number) => `id ${id} ${JSON.stringify(tokenizer.tokenText(id))}`;
  const after = fit.ids.slice(position + 1).map(token);
  return {
    passed,
    detail: `reads token ${position + 1} of ${fit.ids.length}: ${token(read)}, ${passed ? "the prompt's last" : "NOT the prompt's last"}; ${after.length > 0 ? `after it the tokenizer appends ${after.join(", ")} (not read)` : "nothing after it"}`,
  };
}

function checkUntouched(model: VerifierModel, pieces: PromptPiece[], text: string, ids: number[]) {
  const format = promptFormat(model.tokenizer, model.chat);
  const render = (texts: (string | null)[]) => format.render(pieces, texts);
  const plain = render(pieces.map(pieceText));
  const plainIds = format.encode(plain);
  if (plainIds.length <= model.config.max_length) {
    const same =
      text === plain && ids.length === plainIds.length && ids.every((id, i) => id === plainIds[i]);
    return {
      passed: same,
      detail: same
        ? "fits: string and ids identical to plain filling"
        : "fits but the input was CHANGED",
    };
  }
  const index = pieces.findIndex((p) => p.role === "question");
  const question = pieces[index];
  if (question === undefined)
    return { passed: false, detail: "does not fit and the template has no question to cut" };
  // The prompt around the question: the template rendered with a mark in its place.
  const mark = "\u{F8FF}";
  const around = render(
    pieces.map((p, i) => (i === index ? p.prefix + mark + p.suffix : pieceText(p))),
  );
  const [before = "", after = ""] = around.split(mark);
  const middle = text.slice(before.length, text.length - after.length);
  const passed =
    text.startsWith(before) && text.endsWith(after) && question.body.startsWith(middle);
  return {
    passed,
    detail: passed
      ? `does not fit (${plainIds.length} > ${model.config.max_length}): only the question's tail was cut`
      : "does not fit, and more than the question's tail changed",
  };
}

/** Fills the model's first template the way its scorer does (same criterion, same sanitizer). */
function resolverOf(model: VerifierModel): (question: string, answer: string) => PromptPiece[] {
  const { template, criteria } = model.config;
  const criterion = criteria?.[0]?.text ?? "";
  const sanitizer = model.untrustedFilter(template);
  return (question, answer) => {
    const prompt = resolvePrompt(
      template,
      { question, answer, metadata: {} },
      criterion,
      sanitizer,
    );
    if (!prompt.ok) throw new Error(`cannot check this template: ${prompt.message}`);
    return prompt.pieces;
  };
}

function plainTokens(model: VerifierModel, pieces: PromptPiece[]): number {
  const format = promptFormat(model.tokenizer, model.chat);
  return format.encode(format.render(pieces, pieces.map(pieceText))).length;
}

function lastText(pieces: readonly PromptPiece[]): string {
  return pieces.findLast((p) => p.role === "text")?.body.trim() ?? "";
}

function includesAll(text: string, parts: readonly string[]): boolean {
  return parts.every((part) => text.includes(part));
}

function sampleOf(question: string, answer: string, index: number): Sample {
  return {
    id: `check-${index}`,
    taskId: "check",
    candidateIndex: index,
    question,
    answer,
    metadata: {},
    line: 0,
  };
}
