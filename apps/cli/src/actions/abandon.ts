import { abandonRun } from "@assay/pipeline";
import { CliExit, ExitCode } from "../exit-codes.js";
import { writeOut } from "../output.js";
import { requireRun } from "../require-run.js";
import { openStoreFor } from "../store-option.js";

export interface AbandonFlags {
  db?: string;
  dbSchema?: string;
}

export async function abandonAction(runId: string, flags: AbandonFlags): Promise<void> {
  const store = await openStoreFor(flags.db, "assay abandon", {
    create: false,
    schema: flags.dbSchema,
  });
  try {
    await requireRun(store, runId);
    const outcome = await abandonRun(store, runId);
    if (outcome.state === "completed") {
      throw new CliExit(
        ExitCode.refused,
        `Run ${runId} is completed: there is nothing to abandon. Drop its raw rows with \`assay prune --run ${runId}\`.`,
      );
    }
    const when = outcome.abandonedAt.toISOString();
    writeOut(
      outcome.here
        ? `Abandoned ${runId} (${when}). Drop its raw rows with \`assay prune --run ${runId}\`.\n`
        : `${runId} was abandoned already (${when}).\n`,
    );
  } finally {
    await store.close();
  }
}
