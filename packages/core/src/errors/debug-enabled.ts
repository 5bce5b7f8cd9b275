// Beside env.ts, the one place an environment variable is read: how an error is reported
// must be known without loading env.ts's schema (zod), which the CLI's help does not need.

/**
 * `ASSAY_DEBUG=1`: errors are printed with their stack trace. Read on its own, so a bad
 * value in another variable cannot hide it while that very error is reported.
 */
export function debugEnabled(source: NodeJS.ProcessEnv = process.env): boolean {
  const value = source.ASSAY_DEBUG?.trim().toLowerCase();
  return value !== undefined && value !== "" && value !== "0" && value !== "false";
}
