import { printable, UnrecoverableJobError } from "@assay/core";
import { describeError } from "./describe-error.js";

/**
 * The store refused this one row for a data reason (see `isDataError`): writing it again
 * would fail the same way, so the queue must not retry its job.
 */
export class RejectedRowError extends UnrecoverableJobError {
  override name = "RejectedRowError";
  /** The store's words, with its error code: `unsupported Unicode escape sequence (22P05)`. */
  readonly reason: string;

  constructor(cause: unknown) {
    const code = (cause as { code?: unknown } | null)?.code;
    // Escaped: the reason is stored in error rows, and may quote the refused value.
    const said = printable(describeError(cause));
    const reason = typeof code === "string" ? `${said} (${code})` : said;
    super(`the store refused this row: ${reason}`, { cause });
    this.reason = reason;
  }
}
