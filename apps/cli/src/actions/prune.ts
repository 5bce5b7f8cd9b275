import {
  PRUNE_MIN_FREE_BYTES,
  type PruneOutcome,
  type PruneSelection,
  type SkippedRun,
} from "@assay/store";
import prettyBytes from "pretty-bytes";
import { CliExit, ExitCode } from "../exit-codes.js";
import { lostDatabase } from "../lost-connection.js";
import { writeErr, writeOut } from "../output.js";
import { requireRun } from "../require-run.js";
import { openStoreFor, storeTarget } from "../store-option.js";

export interface PruneFlags {
  /** Milliseconds. */
  olderThan?: number;
  keepLast?: number;
  abandoned?: boolean;
  run?: string[];
  dryRun?: boolean;
  json?: boolean;
  db?: string;
  dbSchema?: string;
}

export async function pruneAction(flags: PruneFlags): Promise<void> {
  if (
    flags.olderThan === undefined &&
    flags.keepLast === undefined &&
    flags.abandoned !== true &&
    flags.run === undefined
  ) {
    throw new CliExit(
      ExitCode.usage,
      "assay prune needs --older-than <duration>, --keep-last <n>, --abandoned or --run <run-id>, e.g. `assay prune --older-than 90d --dry-run`.",
    );
  }
  const selection: PruneSelection = {
    ...(flags.olderThan !== undefined && { startedBefore: new Date(Date.now() - flags.olderThan) }),
    ...(flags.keepLast !== undefined && { keepLast: flags.keepLast }),
    ...(flags.abandoned === true && { abandoned: true }),
    ...(flags.run !== undefined && { runIds: flags.run }),
  };
  // A full disk is when a prune is most wanted: it writes almost nothing, so it opens the
  // embedded store with less room than a command that writes rows.
  const store = await openStoreFor(flags.db, "assay prune", {
    create: false,
    schema: flags.dbSchema,
    minFreeBytes: PRUNE_MIN_FREE_BYTES,
  });
  try {
    for (const runId of flags.run ?? []) await requireRun(store, runId);
    const dryRun = flags.dryRun === true;
    const outcome = await store.pruneRuns(selection, { dryRun });
    if (flags.json === true) writeOut(`${JSON.stringify({ dryRun, ...outcome }, null, 2)}\n`);
    else writeOut(describeOutcome(outcome, dryRun));
  } catch (error) {
    // A server restarted mid-prune takes the prune's lock with its session: the next prune
    // may start at once, and it finishes every run this one marked.
    throw lostDatabase(
      error,
      storeTarget(flags.db).databaseUrl,
      "run the same `assay prune` again: it finishes the runs this one had begun to prune",
    );
  } finally {
    await store.close();
  }
}

function describeOutcome(outcome: PruneOutcome, dryRun: boolean): string {
  const lines: string[] = [];
  const verb = dryRun ? "would prune" : "pruned";
  for (const run of outcome.pruned) {
    if (run.abandoned) {
      lines.push(
        `${verb} ${run.runId} (abandoned, started ${run.startedAt.toISOString()}): ${prettyBytes(run.bytes)}`,
      );
      continue;
    }
    lines.push(
      `${verb} ${run.runId} (started ${run.startedAt.toISOString()}): ` +
        `${run.samples} samples, ${run.results} results, ${prettyBytes(run.bytes)}`,
    );
  }
  for (const runId of outcome.completed) {
    lines.push(
      `finished pruning ${runId}: an earlier prune stopped before dropping all its raw rows`,
    );
  }
  const bytes = outcome.pruned.reduce((sum, run) => sum + run.bytes, 0);
  const runs = outcome.pruned.length === 1 ? "run" : "runs";
  lines.push(
    outcome.pruned.length === 0
      ? `Nothing ${outcome.completed.length > 0 ? "else " : ""}to prune.`
      : `${dryRun ? "Would prune" : "Pruned"} ${outcome.pruned.length} ${runs}, ${prettyBytes(bytes)} of raw rows; their runs rows and rollups remain.` +
          (dryRun ? " Run again without --dry-run to drop them." : ""),
  );
  for (const run of outcome.skipped) {
    writeErr(`kept ${run.runId}: ${whyKept(run)}.\n`);
  }
  return `${lines.join("\n")}\n`;
}

function whyKept(run: SkippedRun): string {
  switch (run.reason) {
    case "unfinished":
      return `it has not finished (if it never will: \`assay abandon ${run.runId}\`), so its raw rows are its only figures`;
    case "no rollups":
      return "it has no rollups (resume or rerun it to write them), so its raw rows are its only figures";
    case "pinned baseline":
      return `it is a pinned baseline that later runs are compared with (\`assay baseline ${run.runId} --unpin\` first to prune it)`;
  }
}
