import Table from "cli-table3";
import { type Command, InvalidArgumentError, Option } from "commander";
import { CliExit, ExitCode } from "../exit-codes.js";
import { type DeviceName, deviceName, positiveInt } from "../options.js";
import { writeErr, writeOut } from "../output.js";
import { requireVerifier } from "../scorer-registry.js";

interface MakeTinyFlags {
  kind: "decoder" | "encoder";
  head?: "probe" | "distribution";
  layers?: number;
  hidden?: number;
  seed?: number;
  fullVocab?: boolean;
  externalData?: boolean;
  withPast?: boolean;
  fusedAttention?: boolean;
}

interface CheckFlags {
  lengths: number[];
  device?: DeviceName;
  json?: boolean;
  original?: string;
}

interface PrepareFlags {
  out: string;
  heads?: ("distribution" | "probe")[];
}

export function registerModel(program: Command): void {
  const model = program
    .command("model")
    .description("verifier models: make a tiny test model, prepare an export, check a model");

  model
    .command("make-tiny")
    .description(
      "write a tiny verifier model (seeded weights, real Qwen3 tokenizer) for tests; its scores mean nothing",
    )
    .argument("<dir>", "folder to write (created; files in it are replaced)")
    .addOption(
      new Option("--kind <kind>", "model kind").choices(["decoder", "encoder"]).default("decoder"),
    )
    .addOption(
      new Option(
        "--head <head>",
        "head in assay.json (default probe; distribution with --full-vocab)",
      ).choices(["probe", "distribution"]),
    )
    .option("--layers <n>", "transformer layers (default 2)", positiveInt("--layers"))
    .option("--hidden <n>", "hidden size (default 32)", positiveInt("--hidden"))
    .option("--seed <n>", "weight seed (default 1)", positiveInt("--seed"))
    .option(
      "--full-vocab",
      "a decoder like optimum's text-generation export: logits over the whole 151,669-token vocabulary at every position (19 MB at hidden 32)",
    )
    .option("--external-data", "write the weights to onnx/model.onnx_data (external data)")
    .option(
      "--with-past",
      "a decoder like optimum's text-generation-with-past export (past_key_values inputs, present outputs): prompts sharing a prefix compute it once",
    )
    .option(
      "--fused-attention",
      "attention fused as onnxruntime's optimizers write it (com.microsoft GroupQueryAttention): no [batch, heads, seq, seq] tensor is held; right-padded, a decoder only",
    )
    .action(async (dir: string, flags: MakeTinyFlags) => {
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
        throw new CliExit(
          ExitCode.usage,
          "--with-past makes a decoder: use it with --kind decoder",
        );
      }
      if (flags.fusedAttention === true && flags.kind !== "decoder") {
        throw new CliExit(
          ExitCode.usage,
          "--fused-attention writes causal attention: use it with --kind decoder",
        );
      }
      const verifier = await requireVerifier();
      const written = await verifier.makeTinyModel(dir, {
        kind: flags.kind,
        head,
        ...(flags.layers !== undefined && { layers: flags.layers }),
        ...(flags.hidden !== undefined && { hidden: flags.hidden }),
        ...(flags.seed !== undefined && { seed: flags.seed }),
        fullVocab: flags.fullVocab === true,
        externalData: flags.externalData === true,
        withPast: flags.withPast === true,
        fusedAttention: flags.fusedAttention === true,
      });
      const vocab = flags.fullVocab === true ? ", full-vocabulary logits" : "";
      const past = flags.withPast === true ? ", with past key values" : "";
      const fused = flags.fusedAttention === true ? ", fused attention" : "";
      writeErr(`Wrote a tiny ${flags.kind} (${head} head${vocab}${past}${fused}) to ${written}\n`);
    });

  model
    .command("prepare")
    .description(
      "rewrite an exported graph to take the score position and return only what the head reads",
    )
    .argument("<model>", "exported model folder (onnx/model.onnx, tokenizer, config, assay.json)")
    .requiredOption("--out <dir>", "folder to write the prepared model to")
    .option(
      "--heads <list>",
      "heads the prepared graph serves: distribution, probe or both (default: the head of assay.json)",
      headList,
    )
    .action(async (source: string, flags: PrepareFlags) => {
      const verifier = await requireVerifier();
      const result = await verifier.prepareModel(source, flags.out, {
        ...(flags.heads !== undefined && { heads: flags.heads }),
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
    });

  model
    .command("check")
    .description(
      "run the fitting checks (answer survives, distinct answers, fit untouched, score position; pairwise answers survive) on a model",
    )
    .argument("<model>", "model folder (or Hugging Face id, cached)")
    .option(
      "--lengths <list>",
      "input lengths in tokens",
      lengthList,
      [500, 2000, 2100, 4000, 8000],
    )
    .option("--device <device>", "cpu or cuda:<id>", deviceName)
    .option(
      "--original <dir>",
      "the export <model> was prepared from: compare their scores on the same inputs (|Δ| ≤ 1e-5) and output bytes per row",
    )
    .option("--json", "print the rows as JSON")
    .action(async (source: string, flags: CheckFlags) => {
      const verifier = await requireVerifier();
      const device = flags.device !== undefined ? { device: flags.device } : {};
      const rows = await verifier.checkModel(source, { lengths: flags.lengths, ...device });
      const compared =
        flags.original === undefined
          ? null
          : await verifier.checkPrepared(source, flags.original, {
              lengths: flags.lengths,
              ...device,
            });
      if (flags.json === true) {
        const json = compared === null ? rows : { checks: rows, prepared: compared };
        writeOut(`${JSON.stringify(json, null, 2)}\n`);
      } else {
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
    });
}

type CheckRow = { check: string; length: number; passed: boolean; detail: string };

function checkTable(source: string, rows: CheckRow[]): string {
  const table = new Table({
    head: ["check", "tokens", "result", "detail"],
    style: { head: [], border: [] },
  });
  for (const row of rows)
    table.push([row.check, row.length, row.passed ? "pass" : "FAIL", row.detail]);
  return `Model checks for ${source}\n${table.toString()}`;
}

function lengthList(value: string): number[] {
  const lengths = value.split(",").map((part) => Number(part.trim()));
  if (lengths.some((length) => !Number.isInteger(length) || length < 1)) {
    throw new InvalidArgumentError(
      `Expected --lengths to be token counts like 500,2000, got "${value}".`,
    );
  }
  return lengths;
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

function headList(value: string): ("distribution" | "probe")[] {
  const heads = value.split(",").map((part) => part.trim());
  if (heads.length === 0 || heads.some((h) => h !== "distribution" && h !== "probe")) {
    throw new InvalidArgumentError(
      `Expected --heads to be distribution, probe or distribution,probe, got "${value}".`,
    );
  }
  return heads as ("distribution" | "probe")[];
}
