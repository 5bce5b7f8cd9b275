import {
  estimateBatchCost,
  type PriceTable,
  REQUEST_LIMITS,
  type RequestFormat,
} from "@assay/core";
import type { RequestsEstimate, WrittenRequests } from "@assay/pipeline/requests";
import { writeOut } from "./output.js";

const count = (n: number) => n.toLocaleString("en-US");
const percent = (x: number) => `${(x * 100).toFixed(1)}%`;

/** The files `assay requests` wrote, and the command that joins their answers. */
export function printWritten(
  written: WrittenRequests,
  context: { format: RequestFormat; dataset: string; spec: string | undefined; json: boolean },
): void {
  const answersFormat = REQUEST_LIMITS[context.format].answersFormat;
  if (context.json) {
    writeOut(`${JSON.stringify({ ...written, answersFormat })}\n`);
    return;
  }
  const lines = [
    `${count(written.requests)} ${context.format} requests from ${count(written.rows)} rows, in ${written.files.length} files:`,
    ...written.files.map(
      (file) => `  ${file.path}  ${count(file.requests)} requests, ${count(file.bytes)} bytes`,
    ),
    "Send each file as one batch; then join the output files:",
    `  assay run ${context.dataset}${context.spec === undefined ? "" : ` --spec ${context.spec}`} --answers <output file> --answers-format ${answersFormat}`,
  ];
  writeOut(`${lines.join("\n")}\n`);
}

/** What `--estimate` counted, and its cost at the price table's prices. */
export function printEstimate(
  estimate: RequestsEstimate,
  context: { model: string; prices: PriceTable | undefined; json: boolean },
): void {
  const price = context.prices?.models[context.model];
  const cost = context.prices === undefined ? undefined : estimateBatchCost(price, estimate);
  if (context.json) {
    const currency = context.prices?.currency;
    writeOut(`${JSON.stringify({ ...estimate, ...(cost !== undefined && { cost, currency }) })}\n`);
    return;
  }
  const lines = [
    `${count(estimate.requests)} requests from ${count(estimate.rows)} rows`,
    `input tokens ≈ ${count(estimate.inputTokens)} (one per 4 characters of system prompt and prompt)`,
    approximationLine(estimate),
    estimate.maxOutputTokens === null
      ? "output tokens: no bound without --max-tokens"
      : `output tokens ≤ ${count(estimate.maxOutputTokens)} (--max-tokens × answers per row)`,
  ];
  if (context.prices !== undefined) lines.push(costLine(context.model, context.prices, cost));
  writeOut(`${lines.join("\n")}\n`);
}

function approximationLine(estimate: RequestsEstimate): string {
  const measured = estimate.approximation;
  if (measured === null) return "approximation error: no prompt to measure it on";
  const direction = measured.totalError >= 0 ? "over" : "under";
  return `approximation error, measured on ${count(measured.sampled)} prompts against ${measured.tokenizer}: total ${percent(Math.abs(measured.totalError))} ${direction}, median prompt ${percent(measured.medianPromptError)} off`;
}

function costLine(
  model: string,
  prices: PriceTable,
  cost: ReturnType<typeof estimateBatchCost> | undefined,
): string {
  if (cost === undefined || cost.inputCost === null) {
    return `cost: the price table has no input price for ${model}`;
  }
  const amount = (x: number) => `${x.toFixed(6)} ${prices.currency}`;
  if (cost.maxOutputCost === null) {
    return `cost: input ${amount(cost.inputCost)}; output not bounded (no --max-tokens or output price)`;
  }
  return `cost: input ${amount(cost.inputCost)} + output ≤ ${amount(cost.maxOutputCost)} = at most ${amount(cost.inputCost + cost.maxOutputCost)} (uncached input price)`;
}
