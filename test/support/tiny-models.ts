import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Sample } from "@assay/core";
import { makeTinyModel, type TinyModelOptions } from "@assay/model-tools";

const root = mkdtempSync(join(tmpdir(), "assay-verifier-test-"));
const made = new Map<string, Promise<string>>();

/** A tiny model folder, generated once per test file (a few ms) and reused. */
export function tinyModel(options: TinyModelOptions = {}): Promise<string> {
  const key = JSON.stringify(options);
  let dir = made.get(key);
  if (dir === undefined) {
    dir = makeTinyModel(join(root, `model-${made.size}`), options);
    made.set(key, dir);
  }
  return dir;
}

export function sample(
  question: string,
  answer: string,
  metadata: Record<string, unknown> = {},
): Sample {
  return {
    id: answer.slice(0, 20),
    taskId: "t",
    candidateIndex: 0,
    question,
    answer,
    metadata,
    line: 1,
  };
}

export const tempRoot = root;
