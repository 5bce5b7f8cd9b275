import type { Sample, Score, Target } from "@assay/core";
import { defaultRegistry } from "../src/index.js";

export function sampleOf(
  answer: string,
  target?: Target,
  metadata: Record<string, unknown> = {},
): Sample {
  return {
    id: "s1",
    taskId: "s1",
    candidateIndex: 0,
    question: "q",
    answer,
    metadata,
    line: 1,
    ...(target !== undefined && { target }),
  };
}

/** Builds the scorer the way a worker does (through the registry) and scores one answer. */
export function score(
  name: string,
  args: Record<string, unknown>,
  answer: string,
  target?: Target,
  metadata?: Record<string, unknown>,
): Promise<Score> {
  return Promise.resolve(
    defaultRegistry().create({ name, args })(sampleOf(answer, target, metadata), {}),
  );
}

/** The value of a scored result; fails the test with the reason when it was unscored. */
export async function scoreValue(...call: Parameters<typeof score>): Promise<number> {
  const result = await score(...call);
  if (result.status !== "scored")
    throw new Error(`unscored: ${result.reason} ${result.message ?? ""}`);
  return result.value;
}
