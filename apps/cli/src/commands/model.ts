import { CHAT_FAMILIES } from "@assay/core/chat-families";
import { type CommandUnknownOpts, InvalidArgumentError, Option } from "@commander-js/extra-typings";
import type { CheckFlags, MakeTinyFlags, PrepareFlags } from "../actions/model.js";
import { declaredFlags } from "../declared-flags.js";
import { deviceName, MODEL_SOURCE_HELP, positiveInt, wholeNumberList } from "../options.js";

export function registerModel(program: CommandUnknownOpts): void {
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
        "head in assay.json (default: probe; distribution with --full-vocab)",
      ).choices(["probe", "distribution"]),
    )
    .option("--layers <n>", "transformer layers (default: 2)", positiveInt("--layers"))
    .option("--hidden <n>", "hidden size (default: 32)", positiveInt("--hidden"))
    .option("--seed <n>", "weight seed (default: 1)", positiveInt("--seed"))
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
    .addOption(
      new Option(
        "--chat <family>",
        "a chat model: that family's real tokenizer and chat template, the instruction as the system message; llama3.2 is Llama 3's tokenizer with Llama 3.2 Instruct's template (all but qwen3 take a probe head)",
      ).choices(CHAT_FAMILIES),
    )
    .action(async (dir, flags) => {
      const { makeTinyAction } = await import("../actions/model.js");
      await makeTinyAction(dir, declaredFlags<MakeTinyFlags>()(flags));
    });

  model
    .command("prepare")
    .description(
      "rewrite an exported graph to take the score position and return only what the head reads",
    )
    .argument(
      "<model>",
      `${MODEL_SOURCE_HELP}: an export (onnx/model.onnx, tokenizer, config, assay.json)`,
    )
    .requiredOption("--out <dir>", "folder to write the prepared model to")
    .option(
      "--heads <list>",
      "heads the prepared graph serves: distribution, probe or both (default: the head of assay.json)",
      headList,
    )
    .action(async (source, flags) => {
      const { prepareAction } = await import("../actions/model.js");
      await prepareAction(source, declaredFlags<PrepareFlags>()(flags));
    });

  model
    .command("check")
    .description(
      "run the fitting checks (answer survives, distinct answers, fit untouched, score position; pairwise answers survive) on a model",
    )
    .argument("<model>", MODEL_SOURCE_HELP)
    .option(
      "--lengths <list>",
      "input lengths in tokens",
      wholeNumberList("--lengths", { items: "token counts", example: "500,2000" }),
      [500, 2000, 2100, 4000, 8000],
    )
    .option("--device <device>", "cpu or cuda:<id>", deviceName)
    .option(
      "--original <dir>",
      "the export <model> was prepared from: compare their scores on the same inputs (|Δ| ≤ 1e-5) and output bytes per row",
    )
    .option(
      "--json",
      "print JSON: the prompt (rendered example, score position and token, tokens after) and the check rows",
    )
    .action(async (source, flags) => {
      const { checkAction } = await import("../actions/model.js");
      await checkAction(source, declaredFlags<CheckFlags>()(flags));
    });
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
