import Table from "cli-table3";
import { type Command, InvalidArgumentError, Option } from "commander";
import { CliExit, ExitCode } from "../exit-codes.js";
import { type DeviceName, deviceName, positiveInt } from "../options.js";
import { writeErr, writeOut } from "../output.js";
import { requireVerifier } from "../scorer-registry.js";

interface MakeTinyFlags {
  kind: "decoder" | "encoder";
  head: "probe" | "distribution";
  layers?: number;
  hidden?: number;
  seed?: number;
}

interface CheckFlags {
  lengths: number[];
  device?: DeviceName;
  json?: boolean;
}

export function registerModel(program: Command): void {
  const model = program
    .command("model")
    .description("verifier models: make a tiny test model, check a model");

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
      new Option("--head <head>", "head in assay.json")
        .choices(["probe", "distribution"])
        .default("probe"),
    )
    .option("--layers <n>", "transformer layers (default 2)", positiveInt("--layers"))
    .option("--hidden <n>", "hidden size (default 32)", positiveInt("--hidden"))
    .option("--seed <n>", "weight seed (default 1)", positiveInt("--seed"))
    .action(async (dir: string, flags: MakeTinyFlags) => {
      if (flags.kind === "encoder" && flags.head === "distribution") {
        throw new CliExit(
          ExitCode.usage,
          "--head distribution needs a decoder (it reads next-token logits)",
        );
      }
      const verifier = await requireVerifier();
      const written = await verifier.makeTinyModel(dir, {
        kind: flags.kind,
        head: flags.head,
        ...(flags.layers !== undefined && { layers: flags.layers }),
        ...(flags.hidden !== undefined && { hidden: flags.hidden }),
        ...(flags.seed !== undefined && { seed: flags.seed }),
      });
      writeErr(`Wrote a tiny ${flags.kind} (${flags.head} head) to ${written}\n`);
    });

  model
    .command("check")
    .description(
      "run the three fitting checks (answer survives, distinct answers, fit untouched) on a model",
    )
    .argument("<model>", "model folder (or Hugging Face id, cached)")
    .option(
      "--lengths <list>",
      "input lengths in tokens",
      lengthList,
      [500, 2000, 2100, 4000, 8000],
    )
    .option("--device <device>", "cpu or cuda:<id>", deviceName)
    .option("--json", "print the rows as JSON")
    .action(async (source: string, flags: CheckFlags) => {
      const verifier = await requireVerifier();
      const rows = await verifier.checkModel(source, {
        lengths: flags.lengths,
        ...(flags.device !== undefined && { device: flags.device }),
      });
      writeOut(
        `${flags.json === true ? JSON.stringify(rows, null, 2) : checkTable(source, rows)}\n`,
      );
      const failed = rows.filter((row) => !row.passed).length;
      if (failed > 0)
        throw new CliExit(
          ExitCode.refused,
          `${failed} of ${rows.length} checks failed: do not trust this verifier's scores yet`,
        );
    });
}

function checkTable(
  source: string,
  rows: Array<{ check: string; length: number; passed: boolean; detail: string }>,
): string {
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
