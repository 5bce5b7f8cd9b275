import { InputError, type Sample } from "@assay/core";
import { type DatasetFormat, readDataset } from "@assay/pipeline";
import { CliExit, ExitCode } from "./exit-codes.js";

/**
 * Every sample of a dataset whose answers all carry a `label`, with both labels present.
 * The first bad line, or the first answer without a label, is refused with its file, line
 * and field (exit 3); a dataset of a single label is refused as a whole.
 */
export async function readLabelledSamples(file: string, format?: DatasetFormat): Promise<Sample[]> {
  const samples: Sample[] = [];
  for await (const event of readDataset(file, format !== undefined ? { format } : {})) {
    if (event.kind === "error") throw event.error;
    for (const sample of event.samples) {
      if (sample.label === undefined) {
        const multiple = event.samples.length > 1;
        throw new InputError({
          file,
          line: sample.line,
          field: multiple ? `candidates[${sample.candidateIndex}].label` : "label",
          message:
            "expected true or false: fitting or evaluating a probe needs a label on every answer",
        });
      }
      samples.push(sample);
    }
  }
  const positives = samples.filter((s) => s.label === true).length;
  if (positives === 0 || positives === samples.length) {
    throw new CliExit(
      ExitCode.refused,
      `${file}: all ${samples.length} answers are labelled ${positives === 0 ? "false" : "true"}; a probe needs answers of both labels`,
    );
  }
  return samples;
}
