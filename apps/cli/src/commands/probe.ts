import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import type { EvalFlags, FitFlags } from "../actions/probe.js";
import { declaredFlags } from "../declared-flags.js";
import {
  deviceName,
  FORMAT_OPTION,
  MODEL_SOURCE_HELP,
  positiveInt,
  wholeNumber,
} from "../options.js";

export function registerProbe(program: CommandUnknownOpts): void {
  const probe = program
    .command("probe")
    .description("fit a verifier's probe head on labelled answers, and measure a head on them");

  probe
    .command("fit")
    .description(
      "run labelled answers through the model, fit a logistic probe on the hidden state at the score position (L2 strength by k-fold cross-validation) and write a model folder with it",
    )
    .argument("<model>", MODEL_SOURCE_HELP)
    .argument(
      "<labelled>",
      "dataset (JSONL, CSV, TSV or Parquet, or - for standard input); every answer (or candidate) has `label` true/false",
    )
    .option(...FORMAT_OPTION)
    .requiredOption("--out <dir>", "folder to write the model with the fitted probe to")
    .option("--folds <n>", "cross-validation folds", wholeNumber("--folds", { min: 2 }), 5)
    .option("--seed <n>", "seed of the fold assignment", positiveInt("--seed"), 1)
    .option("--device <device>", "cpu or cuda:<id>", deviceName)
    .option("--json", "print the fit report as JSON")
    .action(async (source, file, flags) => {
      const { fitAction } = await import("../actions/probe.js");
      await fitAction(source, file, declaredFlags<FitFlags>()(flags));
    });

  probe
    .command("eval")
    .description(
      "score labelled answers through the model's own head (probe or distribution) and print AUROC, accuracy at 0.5, Brier score and calibration error",
    )
    .argument("<model>", MODEL_SOURCE_HELP)
    .argument(
      "<labelled>",
      "dataset (JSONL, CSV, TSV or Parquet, or - for standard input); every answer (or candidate) has `label` true/false",
    )
    .option(...FORMAT_OPTION)
    .option("--device <device>", "cpu or cuda:<id>", deviceName)
    .option("--json", "print the figures as JSON")
    .action(async (source, file, flags) => {
      const { evalAction } = await import("../actions/probe.js");
      await evalAction(source, file, declaredFlags<EvalFlags>()(flags));
    });
}
