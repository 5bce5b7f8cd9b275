import type { Sample } from "@assay/core";
import { ModelFolderError, PREPARED, resolvePrompt, type VerifierModel } from "@assay/verifier";

/** The output a probe reads on graphs that are not prepared. */
const HIDDEN_OUTPUT = "last_hidden_state";
/** Samples in flight at once: enough to fill the batcher, few enough to bound memory. */
const CHUNK = 256;

export interface HiddenStates {
  /** Graph output the vectors came from; the fitted head reads the same one. */
  output: string;
  /** One vector per sample that could be fitted into the window, in sample order. */
  rows: Float64Array[];
  /** The samples behind `rows`. */
  samples: Sample[];
  /** Samples whose prompt could not be built or fitted, with why. */
  skipped: { sample: Sample; message: string }[];
}

/**
 * The hidden output a probe on this model reads: the probe head's own output, else an
 * exported graph's `last_hidden_state`, else a prepared graph's `score_hidden`.
 */
export function hiddenOutputOf(model: VerifierModel): string {
  const head = model.config.head;
  if (head.type === "probe") return head.output;
  const outputs = model.session.outputNames;
  for (const name of [HIDDEN_OUTPUT, PREPARED.hidden]) if (outputs.includes(name)) return name;
  throw new ModelFolderError(
    `${model.dir}/onnx/model.onnx`,
    `a probe reads a hidden-state output (\`${HIDDEN_OUTPUT}\`, or \`${PREPARED.hidden}\` on a prepared graph) but the graph returns only ${outputs.map((o) => `\`${o}\``).join(", ")}; export it with the hidden states, or prepare it with --heads probe`,
  );
}

/**
 * One hidden-state vector per sample at its score position, through the scorer's own
 * path: the model's template (variant 0, the first criterion), fitting into the window
 * with the `error` overflow policy, and the batched forward pass.
 */
export async function collectHiddenStates(
  model: VerifierModel,
  samples: readonly Sample[],
): Promise<HiddenStates> {
  const output = hiddenOutputOf(model);
  const template = model.config.template;
  const criterion = model.config.criteria?.[0]?.text ?? "";
  const sanitizer = model.untrustedFilter(template);
  const result: HiddenStates = { output, rows: [], samples: [], skipped: [] };
  for (let start = 0; start < samples.length; start += CHUNK) {
    const chunk = samples.slice(start, start + CHUNK);
    const vectors = await Promise.all(
      chunk.map(async (sample) => {
        const prompt = resolvePrompt(template, sample, criterion, sanitizer);
        if (!prompt.ok) return { vector: undefined, message: prompt.message };
        const fit = await model.fit(prompt.pieces, {
          maxLength: model.config.max_length,
          margin: model.config.margin,
          policy: "error",
        });
        if (!fit.ok) return { vector: undefined, message: fit.message };
        return { vector: (await model.forward(fit.ids, output)).output, message: "" };
      }),
    );
    vectors.forEach((v, i) => {
      const sample = chunk[i] as Sample;
      if (v.vector !== undefined) {
        result.rows.push(Float64Array.from(v.vector));
        result.samples.push(sample);
      } else {
        result.skipped.push({ sample, message: v.message });
      }
    });
  }
  return result;
}
