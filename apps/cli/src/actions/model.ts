import type { ChatFamily } from "@assay/core/chat-families";
import Table from "cli-table3";
import { CliExit, ExitCode } from "../exit-codes.js";
import { requireModelTools } from "../model-tools.js";
import type { DeviceName } from "../options.js";
import { writeErr, writeOut } from "../output.js";
import { downloadOption } from "../progress/download-view.js";
import { requireVerifier } from "../scorer-registry.js";

export interface MakeTinyFlags {
  kind: "decoder" | "encoder";
  head?: "probe" | "distribution";
  layers?: number;
  hidden?: number;
  seed?: number;
  fullVocab?: boolean;
  externalData?: boolean;
  withPast?: boolean;
  fusedAttention?: boolean;
  chat?: ChatFamily;
}

export interface CheckFlags {
  lengths: number[];
  device?: DeviceName;
  json?: boolean;
  original?: string;
}

export interface PrepareFlags {
  out: string;
  heads?: ("distribution" | "probe")[];
}

export async function makeTinyAction(dir: string, flags: MakeTinyFlags): Promise<void> {
  const head = flags.head ?? (flags.fullVocab === true ? "distribution" : "probe");
  if (flags.kind === "encoder" && head === "distribution") {
    throw new CliExit(
      ExitCode.usage,
      "--head distribution needs a decoder (it reads next-token logits)",
    );
  }
  if (flags.fullVocab === true && (flags.kind !== "decoder" || head !== "distribution")) {
    throw new CliExit(
      ExitCode.usage,
      "--full-vocab makes a decoder that returns only logits: use it with --kind decoder --head distribution",
    );
  }
  if (flags.withPast === true && flags.kind !== "decoder") {
    throw new CliExit(ExitCode.usage, "--with-past makes a decoder: use it with --kind decoder");
  }
  if (flags.fusedAttention === true && flags.kind !== "decoder") {
    throw new CliExit(
      ExitCode.usage,
      "--fused-attention writes causal attention: use it with --kind decoder",
    );
  }
  if (flags.chat !== undefined && flags.kind !== "decoder") {
    throw new CliExit(ExitCode.usage, "--chat makes a decoder: use it with --kind decoder");
  }
  if (flags.chat !== undefined && flags.chat !== "qwen3" && head === "distribution") {
    throw new CliExit(
      ExitCode.usage,
      `--chat ${flags.chat} takes a probe head: its score letters are not among the tiny logits (use --chat qwen3 for a distribution head)`,
    );
  }
  const tools = await requireModelTools();
  const written = await tools.makeTinyModel(dir, {
    kind: flags.kind,
    head,
    ...(flags.layers !== undefined && { layers: flags.layers }),
    ...(flags.hidden !== undefined && { hidden: flags.hidden }),
    ...(flags.seed !== undefined && { seed: flags.seed }),
    fullVocab: flags.fullVocab === true,
    externalData: flags.externalData === true,
    withPast: flags.withPast === true,
    fusedAttention: flags.fusedAttention === true,
    ...(flags.chat !== undefined && { chat: flags.chat }),
  });
  const vocab = flags.fullVocab === true ? ", full-vocabulary logits" : "";
  const past = flags.withPast === true ? ", with past key values" : "";
  const fused = flags.fusedAttention === true ? ", fused attention" : "";
  const chat = flags.chat === undefined ? "" : `, ${flags.chat} chat template`;
  writeErr(
    `Wrote a tiny ${flags.kind} (${head} head${vocab}${past}${fused}${chat}) to ${written}\n`,
  );
}

export async function prepareAction(source: string, flags: PrepareFlags): Promise<void> {
  const tools = await requireModelTools();
  const result = await tools.prepareModel(source, flags.out, {
    ...(flags.heads !== undefined && { heads: flags.heads }),
    ...downloadOption(),
  });
  const external = result.externalFiles
    .map((f) => `${f.name} (${f.linked ? "hard-linked" : "copied"})`)
    .join(", ");
  writeErr(
    `${[
      `Prepared ${source} for the ${result.heads.join(" and ")} head into ${result.dir}`,
      `  inputs added: ${result.inputs.join(", ")}; outputs: ${result.outputs.join(", ")}`,
      `  score position gathered before: ${result.lmHead ?? "the hidden-state output"}`,
      `  onnx/model.onnx: ${fmtBytes(result.originalBytes)} → ${fmtBytes(result.preparedBytes)}${external === "" ? "" : `; external data kept: ${external}`}`,
      `Next: assay model check ${result.dir} --original ${source}`,
    ].join("\n")}\n`,
  );
}

export async function checkAction(source: string, flags: CheckFlags): Promise<void> {
  const verifier = await requireVerifier();
  const tools = await requireModelTools();
  const device = flags.device !== undefined ? { device: flags.device } : {};
  const model = await verifier.loadModel(source, { ...device, ...downloadOption() });
  let rows: Awaited<ReturnType<typeof tools.checkModel>>;
  let prompt: Awaited<ReturnType<typeof tools.describePrompt>>;
  try {
    prompt = await tools.describePrompt(model);
    rows = await tools.checkModel(model, { lengths: flags.lengths });
  } finally {
    await model.close();
  }
  for (const warning of prompt.warnings) writeErr(`Warning: ${warning}\n`);
  const compared =
    flags.original === undefined
      ? null
      : await tools.checkPrepared(source, flags.original, {
          lengths: flags.lengths,
          ...device,
        });
  if (flags.json === true) {
    // The prompt as `model check` shows it: the rendered example, where the score is read
    // and the tokens the template (or tokenizer) appends after it.
    const json = { prompt, checks: rows, ...(compared !== null && { prepared: compared }) };
    writeOut(`${JSON.stringify(json, null, 2)}\n`);
  } else {
    writeOut(`${promptSection(prompt)}\n`);
    writeOut(`${checkTable(source, rows)}\n`);
    if (compared !== null) {
      writeOut(`${preparedTable(source, flags.original ?? "", compared)}\n`);
    }
  }
  const all = [...rows, ...(compared ?? [])];
  const failed = all.filter((row) => !row.passed).length;
  if (failed > 0)
    throw new CliExit(
      ExitCode.refused,
      `${failed} of ${all.length} checks failed: do not trust this verifier's scores yet`,
    );
}

type CheckRow = { check: string; length: number; passed: boolean; detail: string };

type PromptView = {
  chat: boolean;
  shown: string;
  position: number;
  tokens: number;
  scoreToken: string;
  after: string[];
  date: string | null;
};

/** The prompt the model is given (a short example), special tokens in «», and where the score is read. */
function promptSection(view: PromptView): string {
  const how = view.chat
    ? "Prompt (the model's chat template, special tokens in «»), filled with a short example:"
    : "Prompt (plain text, no chat template), filled with a short example:";
  const token = JSON.stringify(view.scoreToken);
  const read = view.chat
    ? `Score read at token ${view.position} of ${view.tokens}, ${token}: the assistant's answer starts next`
    : `Score read at token ${view.position} of ${view.tokens}, ${token}`;
  const after =
    view.after.length === 0
      ? ""
      : view.chat
        ? `; after the answer the template writes ${view.after.map((t) => JSON.stringify(t)).join(", ")}`
        : `; after it the tokenizer appends ${view.after.map((t) => JSON.stringify(t)).join(", ")} (not read)`;
  const rule = "─".repeat(40);
  const date =
    view.date === null
      ? ""
      : `Template date: ${view.date} (the template's strftime_now renders this day every night; set assay.json "chat": { "date": "YYYY-MM-DD" } to change it)\n`;
  return `${how}\n${rule}\n${view.shown}▌\n${rule}\n${read}${after}\n${date}`;
}

function checkTable(source: string, rows: CheckRow[]): string {
  const table = new Table({
    head: ["check", "tokens", "result", "detail"],
    style: { head: [], border: [] },
  });
  for (const row of rows)
    table.push([row.check, row.length, row.passed ? "pass" : "FAIL", row.detail]);
  return `Model checks for ${source}\n${table.toString()}`;
}

function preparedTable(
  source: string,
  original: string,
  rows: Array<{
    length: number;
    passed: boolean;
    originalBytesPerRow: number;
    preparedBytesPerRow: number;
    detail: string;
  }>,
): string {
  const table = new Table({
    head: ["question tokens", "result", "output per row: original", "prepared", "detail"],
    style: { head: [], border: [] },
  });
  for (const row of rows) {
    table.push([
      row.length,
      row.passed ? "pass" : "FAIL",
      fmtBytes(row.originalBytesPerRow),
      fmtBytes(row.preparedBytesPerRow),
      row.detail,
    ]);
  }
  return `Prepared ${source} vs original ${original} (same inputs)\n${table.toString()}`;
}

function fmtBytes(bytes: number): string {
  const units = ["B", "KB", "MB", "GB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(unit === 0 ? 0 : 2)} ${units[unit]}`;
}
