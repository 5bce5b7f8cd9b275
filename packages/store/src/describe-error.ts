/** A one-line reason, also for errors with an empty message (Node's AggregateError). */
export function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return error.errors.map(describeError).join("; ");
  }
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    if (error.message !== "") return error.message;
    if (typeof code === "string") return code;
  }
  return String(error);
}
