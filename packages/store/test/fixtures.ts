import type { InputErrorSummary, ScoreRow } from "@assay/core";
import type { Store } from "../src/store.js";

export { sample } from "@assay/test-support/samples";

export function scored(
  runId: string,
  sampleId: string,
  scorer: string,
  value: number,
  rule = "default",
): ScoreRow {
  return {
    runId,
    sampleId,
    scorer,
    criterion: "",
    repetition: 0,
    rule,
    status: "scored",
    value,
    reason: null,
    detail: null,
  };
}

export function unscored(
  runId: string,
  sampleId: string,
  scorer: string,
  reason: string,
  rule = "default",
): ScoreRow {
  return {
    ...scored(runId, sampleId, scorer, 0, rule),
    status: "unscored",
    value: null,
    reason,
    detail: { message: `why: ${reason}` },
  };
}

export function inputError(line: number): InputErrorSummary {
  return { file: "data.jsonl", line, field: "answer", message: `bad line ${line}` };
}

let counter = 0;
/** A run id no other test in this file uses, so tests can share one store. */
/** A fresh run id, started in the store so that its raw tables have their partitions. */
export async function startedRunId(store: Store): Promise<string> {
  const id = freshRunId();
  await store.startRun({ id, spec: {}, transport: "local" });
  return id;
}

export function freshRunId(): string {
  counter += 1;
  return `run-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}
