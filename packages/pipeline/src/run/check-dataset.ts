import { InputError, type InputErrorSummary, type RunSpec } from "@assay/core";
import type { ScorerRegistry } from "@assay/scorers";
import type { OpenDataset } from "../ingest/open-dataset.js";
import { type ReadDatasetOptions, readDataset } from "../ingest/read-dataset.js";
import { createRouter } from "../routing/router.js";
import { planLine } from "./plan.js";

export interface DatasetCheck {
  lines: number;
  samples: number;
  errorCount: number;
  /** The first errors, in line order. */
  errors: InputErrorSummary[];
}

/**
 * Reads the whole dataset and reports every line that would become an input error,
 * storing nothing. `--strict` runs it first and refuses the dataset on any error. It makes
 * the same per-line checks as a run (`readDataset`, `planLine`).
 */
export async function checkDataset(
  dataset: string | OpenDataset,
  spec: RunSpec,
  registry: ScorerRegistry,
  options: ReadDatasetOptions & { maxErrors?: number } = {},
): Promise<DatasetCheck> {
  const maxErrors = options.maxErrors ?? 20;
  const file = typeof dataset === "string" ? dataset : dataset.path;
  const route = createRouter(spec);
  const check: DatasetCheck = { lines: 0, samples: 0, errorCount: 0, errors: [] };
  const record = (error: InputError): void => {
    check.errorCount += 1;
    if (check.errors.length < maxErrors) {
      check.errors.push({
        file: error.file,
        line: error.line,
        field: error.field,
        message: error.reason,
      });
    }
  };

  const read = { ...options, ...(spec.fields !== undefined && { fields: spec.fields }) };
  for await (const event of readDataset(dataset, read)) {
    check.lines += 1;
    if (event.kind === "error") {
      record(event.error);
      continue;
    }
    try {
      planLine("check", event.samples, route, registry, file, spec.generator_usage);
      check.samples += event.samples.length;
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      record(error);
    }
  }
  return check;
}
