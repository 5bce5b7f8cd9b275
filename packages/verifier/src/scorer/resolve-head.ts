import { VerifierArgsError } from "../errors/verifier-args-error.js";
import type { ProbeHead } from "../heads/probe.js";
import { scaleTokenIds } from "../heads/scale.js";
import type { VerifierModel } from "../model/verifier-model.js";
import type { VerifierArgs } from "./verifier-args.js";

export type ResolvedHead =
  | ({ type: "probe"; output: string } & ProbeHead)
  | { type: "distribution"; output: string; scale: string[]; scaleIds: number[]; minMass: number };

/** The model's head with the scorer's overrides applied and checked. */
export function resolveHead(model: VerifierModel, args: VerifierArgs): ResolvedHead {
  const head = model.config.head;
  const overrides = args.head ?? {};
  if (head.type === "probe") {
    if (overrides.scale !== undefined || overrides.min_mass !== undefined) {
      throw new VerifierArgsError(
        "`head.scale` and `head.min_mass` apply to a distribution head; this model's head is a probe: remove them from the scorer's `head` args, or use a model with a distribution head",
      );
    }
    if (model.probe === null) {
      throw new VerifierArgsError(
        "this model's head is a probe but it has no probe vector: set `head.probe` in its assay.json",
      );
    }
    return {
      type: "probe",
      output: head.output,
      probe: model.probe,
      bias: overrides.bias ?? head.bias,
      sigmoid: overrides.sigmoid ?? head.sigmoid,
    };
  }
  if (overrides.bias !== undefined || overrides.sigmoid !== undefined) {
    throw new VerifierArgsError(
      "`head.bias` and `head.sigmoid` apply to a probe head; this model's head is a distribution: remove them from the scorer's `head` args",
    );
  }
  const scale = overrides.scale ?? head.scale;
  let scaleIds = model.scaleIds ?? [];
  if (overrides.scale !== undefined) {
    const checked = scaleTokenIds(model.tokenizer, overrides.scale);
    if (!checked.ok) throw new VerifierArgsError(`head.scale: ${checked.message}`);
    scaleIds = checked.ids;
  }
  return {
    type: "distribution",
    output: head.output,
    scale,
    scaleIds,
    minMass: overrides.min_mass ?? head.min_mass,
  };
}
