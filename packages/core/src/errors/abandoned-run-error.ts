import { AssayError } from "./assay-error.js";

/**
 * The run was given up with `assay abandon`: it is never completed, so work added to it
 * (a resume, a produce, a retry) would be scored into a run no report counts as finished.
 */
export class AbandonedRunError extends AssayError {
  override name = "AbandonedRunError";

  constructor(
    readonly runId: string,
    readonly abandonedAt: Date,
    what: string,
  ) {
    super(
      `Run "${runId}" cannot be ${what}: it was abandoned on ${abandonedAt.toISOString()} ` +
        "(`assay abandon`) and is never completed. Nothing was stored or queued. Score the " +
        `data again under another --run-id, or drop this run with \`assay prune --run ${runId}\`.`,
    );
  }
}
