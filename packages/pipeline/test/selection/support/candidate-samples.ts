import type { Sample } from "@assay/core";
import type { Store } from "@assay/store";

export interface CandidateEntry<C> {
  taskId: string;
  index: number;
  candidate: C;
  /** The sample id: `<task><separator><index>`. */
  id: string;
}

/**
 * Stores one sample per candidate of each task, in task order, with the candidate's label
 * where it has one; returns the entries so the caller can store their scores.
 */
export async function insertCandidateSamples<C extends { label?: boolean }>(
  store: Store,
  runId: string,
  tasks: Record<string, C[]>,
  separator = "#",
): Promise<CandidateEntry<C>[]> {
  const entries = Object.entries(tasks).flatMap(([taskId, candidates]) =>
    candidates.map((candidate, index) => ({
      taskId,
      index,
      candidate,
      id: `${taskId}${separator}${index}`,
    })),
  );
  await store.insertSamples(
    runId,
    entries.map(
      ({ taskId, index, candidate, id }): Sample => ({
        id,
        taskId,
        candidateIndex: index,
        question: "q",
        answer: "a",
        metadata: {},
        line: 1,
        ...(candidate.label !== undefined && { label: candidate.label }),
      }),
    ),
  );
  return entries;
}
