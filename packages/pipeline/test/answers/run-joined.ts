import type { AnswerFormat, RunSpec } from "@assay/core";
import type { ScorerRegistry } from "@assay/scorers";
import type { Store } from "@assay/store";
import { runLocal } from "../../src/index.js";

/** A new embedded run of `dataset` with its answers joined from batch output files. */
export async function runJoined(
  store: Store,
  registry: ScorerRegistry,
  run: { runId: string; dataset: string; spec: RunSpec; files: string[]; format?: AnswerFormat },
) {
  const { runId, dataset, spec } = run;
  await store.startRun({ id: runId, dataset, spec, transport: "local" });
  return runLocal({
    store,
    registry,
    dataset,
    spec,
    runId,
    newRun: true,
    answers: { files: run.files, format: run.format ?? "openai-batch" },
  });
}
