import type { AssayConfigInput } from "@assay/verifier";

/**
 * The pairwise judge of a tiny decoder: both answers, then the choice. Answer A comes first,
 * so judging a pair in both orders shows the model's position bias.
 */
export function tinyPairwiseConfig(): NonNullable<AssayConfigInput["pairwise"]> {
  return {
    template: [
      { text: "The following is a problem and two answers to it.\n[Question]\n" },
      { slot: "question" },
      { text: "\n[Answer A]\n" },
      { slot: "answer_a" },
      { text: "\n[Answer B]\n" },
      { slot: "answer_b" },
      { text: "\nWhich answer is better? Reply with A or B.\nBetter: " },
    ],
    choices: ["A", "B"],
  };
}
