import { z } from "zod";

/** `{ name: "pairwise", args }` as written in a run spec. */
export const PairwiseArgsSchema = z.strictObject({
  /** Local model folder or Hugging Face Hub id; its assay.json needs a `pairwise` section. */
  model: z.string().min(1),
});

export type PairwiseArgs = z.output<typeof PairwiseArgsSchema>;
