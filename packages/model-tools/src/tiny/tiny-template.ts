import type { AssayConfigInput } from "@assay/verifier";

/** The seed's template shape: instruction, [question], [answer], final question. */
const INSTRUCTION =
  "The following is a problem and an answer to it. Decide whether the answer is correct.\n[Question]\n";

export const TINY_SCALE = "ABCDEFGHIJKLMNOPQRST".split("");

export function tinyProbeTemplate(): AssayConfigInput["template"] {
  return [
    { text: INSTRUCTION },
    { slot: "question" },
    { text: "\n[Answer]\n" },
    { slot: "answer" },
    { text: "\nIs this answer correct?" },
  ];
}

function distributionTemplate(finalQuestion: string): AssayConfigInput["template"] {
  return [
    { text: INSTRUCTION },
    { slot: "question" },
    { text: "\n[Answer]\n" },
    { slot: "answer" },
    { text: "\n[Criterion]\n" },
    { slot: "criterion" },
    { text: `\n${finalQuestion} Reply with one letter from A (worst) to T (best).\nScore: ` },
  ];
}

export function tinyDistributionTemplates(): AssayConfigInput["template"][] {
  return [
    distributionTemplate("How well does the answer meet the criterion?"),
    distributionTemplate("Grade the answer against the criterion."),
    distributionTemplate("Judge the answer on this criterion alone."),
  ];
}
