import type { Criterion, Template } from "../config/assay-config.js";
import { VerifierArgsError } from "../errors/verifier-args-error.js";
import type { VerifierModel } from "../model/verifier-model.js";
import type { UntrustedFilter } from "../template/untrusted-text.js";
import type { VerifierArgs } from "./verifier-args.js";

/** One prompt per criterion × variant. */
export interface PromptSpec {
  criterion: Criterion;
  variant: number;
  template: Template;
  /** Neutralizes delimiters and added tokens in untrusted values; null if there are none. */
  sanitizer: UntrustedFilter | null;
}

/** The C×K prompts of a scorer; refuses K>1 with a single variant (identical prompts add nothing). */
export function promptPlan(model: VerifierModel, args: VerifierArgs): PromptSpec[] {
  const templates = args.variants ?? [model.config.template, ...(model.config.variants ?? [])];
  const k = args.repetitions;
  if (k > 1 && templates.length === 1) {
    throw new VerifierArgsError(
      `Expected \`repetitions\` to be 1 with a single prompt variant, got ${k}: identical prompts on a deterministic model add nothing. Add \`variants\` (scorer args or assay.json) or set repetitions to 1`,
    );
  }
  if (k > templates.length) {
    throw new VerifierArgsError(
      `Expected \`repetitions\` to be at most ${templates.length} (the number of prompt variants), got ${k}: lower it or add \`variants\``,
    );
  }
  const criteria = criteriaOf(model, args);
  const used = templates.slice(0, k);
  if (
    criteria.length > 1 &&
    used.some((t) => !t.some((p) => "slot" in p && p.slot === "criterion"))
  ) {
    throw new VerifierArgsError(
      "Several `criteria` need a `criterion` slot in every prompt variant; without it each criterion gets the same prompt: add `{ slot: criterion }` to each of the first `repetitions` variants, or give one criterion",
    );
  }
  const sanitizers = used.map((template) => model.untrustedFilter(template));
  return criteria.flatMap((criterion) =>
    used.map((template, variant) => ({
      criterion,
      variant,
      template,
      sanitizer: sanitizers[variant] ?? null,
    })),
  );
}

function criteriaOf(model: VerifierModel, args: VerifierArgs): Criterion[] {
  if (args.criteria !== undefined) {
    return args.criteria.map((c) => (typeof c === "string" ? { name: c, text: c } : c));
  }
  return model.config.criteria ?? [{ name: "default", text: "" }];
}
