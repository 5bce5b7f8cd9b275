import type { BaselinePin, PinnedBaseline } from "@assay/store";
import { CliExit, ExitCode } from "../exit-codes.js";
import { writeOut } from "../output.js";
import { requireRun } from "../require-run.js";
import { openStoreFor } from "../store-option.js";

export interface BaselineFlags {
  unpin?: boolean;
  db?: string;
  dbSchema?: string;
}

export async function baselineAction(
  runId: string | undefined,
  flags: BaselineFlags,
): Promise<void> {
  if (runId === undefined && flags.unpin === true) {
    throw new CliExit(
      ExitCode.usage,
      "--unpin needs the run to unpin: assay baseline <run-id> --unpin",
    );
  }
  const store = await openStoreFor(flags.db, "assay baseline", {
    create: false,
    schema: flags.dbSchema,
  });
  try {
    if (runId === undefined) {
      writeOut(listLines(await store.listBaselines()));
      return;
    }
    await requireRun(store, runId);
    if (flags.unpin === true) {
      const name = await store.unpinBaseline(runId);
      writeOut(
        name === null
          ? `${runId} is not a pinned baseline: nothing to unpin.\n`
          : `Unpinned ${runId}: runs of "${name}" are compared with the run before them only.\n`,
      );
      return;
    }
    writeOut(pinnedLine(runId, await store.pinBaseline(runId)));
  } finally {
    await store.close();
  }
}

function pinnedLine(runId: string, pin: BaselinePin): string {
  switch (pin.state) {
    case "pruned":
      throw new CliExit(
        ExitCode.refused,
        `Run ${runId} was pruned: its tasks are gone, so no run can be compared with it. Pin a run that is not pruned.`,
      );
    case "abandoned":
      throw new CliExit(
        ExitCode.refused,
        `Run ${runId} was abandoned: it has no figures to compare with. Pin a completed run.`,
      );
    case "unnamed":
      throw new CliExit(
        ExitCode.refused,
        `Run ${runId} has no name (its spec sets no \`name\`): later runs are compared with the runs of their name, so none would be compared with it. Pin a run whose spec names it.`,
      );
    case "not rolled up":
      throw new CliExit(
        ExitCode.refused,
        `Run ${runId} has no task rollups to compare with: it is still scoring, was resumed and has not completed again, or completed before this version. Pin a run once \`assay status ${runId}\` says it is complete.`,
      );
    case "pinned": {
      const replaced =
        pin.previous === null || pin.previous === runId ? "" : ` (replacing ${pin.previous})`;
      return `Pinned ${runId} as the baseline of "${pin.name}"${replaced}: each "${pin.name}" run that completes from now on is also compared with it, so \`assay report <run> --compare ${runId}\` reads counted rows.\n`;
    }
  }
}

function listLines(pins: readonly PinnedBaseline[]): string {
  if (pins.length === 0)
    return "No run is pinned as a baseline (assay baseline <run-id> pins one).\n";
  return pins
    .map((pin) => `${pin.name}: ${pin.runId} (pinned ${pin.pinnedAt.toISOString()})\n`)
    .join("");
}
