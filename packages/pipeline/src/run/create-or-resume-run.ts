import { createHash } from "node:crypto";
import type { RunSpec } from "@assay/core";
import { AbandonedRunError, PrunedRunError } from "@assay/core/errors";
import type { RunOrigin, RunRecord, Store } from "@assay/store";
import type { OpenDataset } from "../ingest/open-dataset.js";
import { specSha256 } from "../spec/spec-hash.js";
import { compareOrigin, type OriginChanges } from "./compare-origin.js";
import { RunChangedError } from "./run-changed-error.js";

export interface CreateOrResumeRunOptions {
  store: Store;
  runId: string;
  /** Opened before the run is registered, so a run never exists without its dataset. */
  dataset: OpenDataset;
  spec: RunSpec;
  transport: string;
  /** Resume even though the dataset is not the one the run was made from. */
  allowChangedDataset?: boolean;
  /** Resume even though the spec is not the one the run was made from. */
  allowChangedSpec?: boolean;
}

export interface CreatedOrResumedRun {
  created: boolean;
  /** What the operator should know about this resume, one line each. */
  notes: string[];
}

const EMPTY_SHA256 = createHash("sha256").digest("hex");

/**
 * Creates the run with what it is made from (dataset identity, spec hash), or resumes it.
 * A resume with another dataset or spec would mix two runs under one id, so it is refused,
 * before anything is stored, naming what changed, unless the operator allows that change.
 * A run created before origins were recorded resumes unchecked, and is recorded now.
 */
export async function createOrResumeRun(
  options: CreateOrResumeRunOptions,
): Promise<CreatedOrResumedRun> {
  const { store, runId, dataset, spec } = options;
  const origin = originOf(dataset, spec);
  let run = await store.getRun(runId);
  if (run === undefined) {
    const { created } = await store.startRun({
      id: runId,
      dataset: dataset.path,
      spec,
      transport: options.transport,
      ...(spec.name !== undefined && { name: spec.name }),
      origin,
    });
    if (created) return { created: true, notes: [] };
    // Another process registered it meanwhile: check against what it recorded.
    run = await store.getRun(runId);
  }
  // Its raw rows are gone: resuming would score it again from nothing, beside rollups
  // that count what was pruned.
  if (run?.prunedAt != null) throw new PrunedRunError(runId, run.prunedAt, "resumed or run again");
  if (run?.abandonedAt != null) {
    throw new AbandonedRunError(runId, run.abandonedAt, "resumed or run again");
  }
  if (run === undefined || run.datasetBytes === null || run.specSha256 === null) {
    await store.setRunOrigin(runId, { dataset: dataset.path, spec, origin });
    const note =
      `Run ${runId} was created before Assay recorded what a run is made from: resuming ` +
      "without checking its dataset and spec (recorded from now on).";
    return { created: false, notes: [note] };
  }
  const changes = await compareOrigin(run, dataset, spec);
  refuseUnallowed(runId, dataset, changes, options);
  await store.setRunOrigin(runId, {
    dataset: dataset.path,
    spec,
    origin: keptOrigin(run, origin, changes),
  });
  return { created: false, notes: notesOf(dataset, changes) };
}

/** A new run's origin: nothing of the dataset read yet. */
function originOf(dataset: OpenDataset, spec: RunSpec): RunOrigin {
  return {
    datasetPath: dataset.resolvedPath,
    datasetBytes: dataset.bytes,
    datasetSha256: EMPTY_SHA256,
    datasetHashedBytes: 0,
    specSha256: specSha256(spec),
  };
}

/**
 * The same dataset keeps the hash of what earlier attempts read (it still covers every
 * stored line); another dataset, allowed, starts over from its first byte.
 */
function keptOrigin(run: RunRecord, origin: RunOrigin, changes: OriginChanges): RunOrigin {
  if (changes.dataset.length > 0) return origin;
  return {
    ...origin,
    datasetSha256: run.datasetSha256 ?? EMPTY_SHA256,
    datasetHashedBytes: run.datasetHashedBytes ?? 0,
  };
}

function refuseUnallowed(
  runId: string,
  dataset: OpenDataset,
  changes: OriginChanges,
  options: CreateOrResumeRunOptions,
): void {
  const refused: string[] = [];
  const flags: string[] = [];
  if (changes.dataset.length > 0 && options.allowChangedDataset !== true) {
    refused.push(`dataset ${dataset.path} changed (${changes.dataset.join("; ")})`);
    flags.push("--allow-changed-dataset");
  }
  if (changes.spec.length > 0 && options.allowChangedSpec !== true) {
    refused.push(`spec changed (${changes.spec.join("; ")})`);
    flags.push("--allow-changed-spec");
  }
  if (refused.length === 0) return;
  throw new RunChangedError(
    `Run ${runId} was made from another dataset or spec, and resuming would mix them: ` +
      `${refused.join("; ")}. Nothing was stored. Start a new run with another --run-id, ` +
      `or resume anyway with ${flags.join(" ")}.`,
  );
}

function notesOf(dataset: OpenDataset, changes: OriginChanges): string[] {
  const notes: string[] = [];
  if (changes.grewFrom !== undefined) {
    notes.push(
      `The dataset grew from ${changes.grewFrom} to ${dataset.bytes} bytes; the bytes read ` +
        "before are unchanged, so its new lines join the run.",
    );
  }
  if (changes.dataset.length > 0) {
    notes.push(
      `Resuming with a changed dataset (${changes.dataset.join("; ")}), as allowed: lines ` +
        "stored before keep their samples and scores.",
    );
  }
  if (changes.spec.length > 0) {
    notes.push(
      `Resuming with a changed spec (${changes.spec.join("; ")}), as allowed: results ` +
        "stored before keep their scores.",
    );
  }
  return notes;
}
