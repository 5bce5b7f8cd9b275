import { NotFoundError } from "./not-found-error.js";

/**
 * The run's raw rows were dropped by `assay prune`: whatever would read or re-derive them
 * (export, resume, selection rerun, a drill-down) refuses it. Its rollups remain, so its
 * report with default settings and trends still show its figures.
 */
export class PrunedRunError extends NotFoundError {
  override name = "PrunedRunError";

  constructor(
    readonly runId: string,
    readonly prunedAt: Date,
    what: string,
  ) {
    super(
      `Run "${runId}" cannot be ${what}: its raw rows were pruned on ${prunedAt.toISOString()} ` +
        `(\`assay prune\`). Its rollups remain: \`assay report ${runId}\` shows its figures, ` +
        "and trends over it still work.",
    );
  }
}
