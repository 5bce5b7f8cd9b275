import { InputError, type Sample, type ScoreJob } from "@assay/core";
import { RejectedRowError, type Store, writeIsolating } from "@assay/store";
import { duplicateIdError } from "../ingest/read-dataset.js";

/** A dataset line that passed its checks: its samples and the jobs that score them. */
export interface PlannedLine {
  line: number;
  samples: Sample[];
  jobs: ScoreJob[];
}

export interface StoredLines {
  /** Lines whose samples are all stored (now, or by an earlier run of the same dataset). */
  stored: PlannedLine[];
  /** One per line left out, in no particular order. */
  errors: InputError[];
}

/**
 * Stores the samples of these lines, each line whole or not at all:
 * - a line the store refuses for a data reason (something the line checks let through)
 *   is found by splitting the batch (`writeIsolating`) and becomes an input error; the
 *   other lines are stored;
 * - a line with an id that another line stored first is refused as a duplicate, and the
 *   samples it did store are taken back, so a task never keeps part of its candidates.
 * Memory stays bounded: ids are checked against the store, not a set of every id.
 */
export async function storeLines(
  store: Store,
  runId: string,
  file: string,
  lines: readonly PlannedLine[],
): Promise<StoredLines> {
  const errors: InputError[] = [];
  let inserted = 0;
  const insert = async (part: readonly PlannedLine[]): Promise<void> => {
    inserted += await store.insertSamples(runId, samplesOf(part));
  };
  const failures = await writeIsolating(lines, insert);
  let pending: PlannedLine[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] as PlannedLine;
    const failure = failures.get(index);
    if (failure === undefined) pending.push(line);
    else if (failure instanceof RejectedRowError) errors.push(refusedByStore(file, line, failure));
    else throw failure;
  }

  const stored: PlannedLine[] = [];
  // Fast path: every sample was new. Otherwise some ids were stored before: by the same
  // line (a resumed run: fine) or by another line (a duplicate: refuse the whole line).
  while (pending.length > 0 && inserted < countSamples(pending)) {
    const owners = await store.sampleLines(runId, idsOf(pending));
    const refused = new Map<PlannedLine, Sample>();
    for (const line of pending) {
      const taken = line.samples.find((sample) => owners.get(sample.id) !== line.line);
      if (taken === undefined) stored.push(line);
      else refused.set(line, taken);
    }
    const takenBack = [...refused.keys()].flatMap((line) =>
      line.samples.filter((sample) => owners.get(sample.id) === line.line),
    );
    await store.deleteSamples(runId, takenBack);
    // A line refused only for an id that a refused line just gave back can be stored now,
    // provided this round settled at least one line (so the loop always ends).
    const freed = new Set(takenBack.map((sample) => sample.id));
    let retry = [...refused].filter(([, taken]) => freed.has(taken.id)).map(([line]) => line);
    if (retry.length === pending.length) retry = [];
    const retried = new Set(retry);
    for (const [line, taken] of refused) {
      if (retried.has(line)) continue;
      const firstLine = owners.get(taken.id) ?? line.line;
      errors.push(duplicateIdError(file, line.line, taken.id, firstLine));
    }
    pending = retry;
    inserted = 0;
    if (pending.length > 0) await insert(pending);
  }
  for (const line of pending) stored.push(line);
  return { stored, errors };
}

function refusedByStore(file: string, line: PlannedLine, error: RejectedRowError): InputError {
  return new InputError({
    file,
    line: line.line,
    field: "",
    message: `the store refused this line (field unknown): ${error.reason}`,
  });
}

function samplesOf(lines: readonly PlannedLine[]): Sample[] {
  const samples: Sample[] = [];
  for (const line of lines) for (const sample of line.samples) samples.push(sample);
  return samples;
}

function idsOf(lines: readonly PlannedLine[]): string[] {
  return samplesOf(lines).map((sample) => sample.id);
}

function countSamples(lines: readonly PlannedLine[]): number {
  let count = 0;
  for (const line of lines) count += line.samples.length;
  return count;
}
