import { fitPrompt, resolvePrompt, type VerifierModel } from "@assay/verifier";
import { pieceText, promptFormat } from "@assay/verifier/tooling";
import type { CheckRow } from "./check-model.js";
import { fillerText } from "./filler.js";

/**
 * The fit contract for a model's pairwise judge at one length: both answers and the final
 * question survive whole, and swapping the answers changes the input ids. None when the
 * model has no `pairwise` section.
 */
export function checkPairwiseLength(
  model: VerifierModel,
  length: number,
  answers: [string, string],
): CheckRow[] {
  const config = model.config.pairwise;
  if (config === undefined) return [];
  const sanitizer = model.untrustedFilter(config.template);
  const piecesOf = (question: string, a: string, b: string) => {
    const metadata = { answer_a: a, answer_b: b };
    const prompt = resolvePrompt(
      config.template,
      { question, answer: "", metadata },
      "",
      sanitizer,
    );
    if (!prompt.ok) throw new Error(`cannot check this pairwise template: ${prompt.message}`);
    return prompt.pieces;
  };
  const format = promptFormat(model.tokenizer, model.chat);
  const empty = piecesOf("", ...answers);
  const overhead = format.encode(format.render(empty, empty.map(pieceText))).length;
  const question = fillerText(model.tokenizer, Math.max(1, length - overhead));
  const options = {
    maxLength: model.config.max_length,
    margin: model.config.margin,
    policy: "error" as const,
  };
  const pieces = piecesOf(question, answers[0], answers[1]);
  const fit = fitPrompt(model.tokenizer, pieces, options, model.chat);
  const swapped = fitPrompt(
    model.tokenizer,
    piecesOf(question, answers[1], answers[0]),
    options,
    model.chat,
  );
  if (!fit.ok || !swapped.ok) {
    const message = !fit.ok ? fit.message : !swapped.ok ? swapped.message : "";
    return [
      { check: "pairwise answers survive", length, passed: false, detail: `refused: ${message}` },
    ];
  }
  const finalText = pieces.findLast((p) => p.role === "text")?.body.trim() ?? "";
  const decoded = model.tokenizer.decode(fit.ids);
  const survives = [...answers, finalText].every((part) => decoded.includes(part));
  const same =
    fit.ids.length === swapped.ids.length && fit.ids.every((id, i) => id === swapped.ids[i]);
  const passed = survives && !same;
  return [
    {
      check: "pairwise answers survive",
      length,
      passed,
      detail: `${fit.ids.length} of ${fit.record.originalTokens} tokens sent; both answers and final question ${survives ? "present" : "MISSING"}; swapped order ${same ? "gives IDENTICAL ids" : "gives other ids"}`,
    },
  ];
}
