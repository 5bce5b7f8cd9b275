import { z } from "zod";
import { CriterionSchema, TemplateSchema } from "../config/assay-config.js";

/** `{ name: "verifier", args }` as written in a run spec. */
export const VerifierArgsSchema = z.strictObject({
  /** Local model folder or Hugging Face Hub id. */
  model: z.string().min(1),
  /** Overrides of the head settings in the model's assay.json. */
  head: z
    .strictObject({
      bias: z.number(),
      sigmoid: z.boolean(),
      scale: z.array(z.string().min(1)).min(2),
      min_mass: z.number().min(0).max(1),
    })
    .partial()
    .optional(),
  /** Criteria C (each a separate prompt); default: assay.json `criteria`. */
  criteria: z
    .array(z.union([z.string().min(1), CriterionSchema]))
    .min(1)
    .optional(),
  /** Prompt variants; default: assay.json `template` followed by its `variants`. */
  variants: z.array(TemplateSchema).min(1).optional(),
  /** Repetitions K: the first K variants are each scored and averaged. Default 1. */
  repetitions: z.int().min(1).default(1),
  /** When the answer alone does not fit: `error` (unscored, overflow) or `keep-answer-tail`. */
  overflow: z.enum(["error", "keep-answer-tail"]).default("error"),
});

export type VerifierArgs = z.output<typeof VerifierArgsSchema>;
export type VerifierArgsInput = z.input<typeof VerifierArgsSchema>;
