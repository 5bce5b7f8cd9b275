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
  return code.startsWith("22") || DATA_CODES.has(code);
}

const DATA_CODES: ReadonlySet<string> = new Set(["23502", "23514", "54000", "54001"]);
