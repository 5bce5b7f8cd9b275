/**
 * Whether a failed write was refused for what the rows hold rather than for the store's
 * state: writing the same rows again fails the same way, so retrying is pointless and the
 * refused rows must be isolated. Postgres class 22 (data exception: NUL byte, invalid JSON
 * escape, out-of-range number, …), 23502 / 23514 (a null or a value a check refuses),
 * 54000 / 54001 (a value too large for an index row; nesting beyond the stack depth), and
 * a JavaScript stack overflow while the driver serializes a deeply nested value.
 */
export function isDataError(error: unknown): boolean {
  if (error instanceof RangeError) return error.message.includes("call stack");
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return false;
  // 23514 too, but the run has no partitions: every row of the run fails alike.
  if (isMissingRunPartition(error)) return false;
  return code.startsWith("22") || DATA_CODES.has(code);
}

const DATA_CODES: ReadonlySet<string> = new Set(["23502", "23514", "54000", "54001"]);

/**
 * Whether a write failed because its run has no partition of the table (migration 0015):
 * the run was never started in this store (`Store.startRun` makes them) or was pruned.
 */
export function isMissingRunPartition(error: unknown): boolean {
  const { routine, message } = (error ?? {}) as { routine?: unknown; message?: unknown };
  return (
    routine === "ExecFindPartition" ||
    (typeof message === "string" && message.startsWith("no partition of relation"))
  );
}

/** The missing-partition failure as a message naming the run and what to do. */
export function describeMissingRunPartition(error: unknown): Error {
  const { message, detail } = error as { message: string; detail?: string };
  const runId = /\(run_id\) = \((.*)\)\.?$/.exec(detail ?? "")?.[1];
  const run = runId === undefined ? "this run" : `run "${runId}"`;
  return new Error(
    `Cannot store rows of ${run}: the store holds no partitions for it (${message}). ` +
      "It was never started in this store (`assay run` or `assay produce` starts it), or " +
      "`assay prune` dropped its raw rows; check the run id and --db.",
    { cause: error },
  );
}
