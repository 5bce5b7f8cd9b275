import { describeMissingRunPartition, isDataError, isMissingRunPartition } from "./data-error.js";
import { RejectedRowError } from "./rejected-row-error.js";

/**
 * Writes `items` with one call of `write`. When the store refuses the batch for a data
 * reason (`isRowError`), the batch is split in halves, and halves again, until each refused
 * row stands alone: a bad row among n costs about 2·log2(n) extra writes, and every other
 * row is written. `write` must be atomic (one statement) and idempotent.
 *
 * Returns the failure of each item not written, by index: a RejectedRowError for a row
 * refused on its own, or the error itself for a part that failed for another reason (the
 * connection dropped, say), which a retry may cure. An empty map means all were written.
 */
export async function writeIsolating<T>(
  items: readonly T[],
  write: (items: T[]) => Promise<unknown>,
  isRowError: (error: unknown) => boolean = isDataError,
): Promise<Map<number, unknown>> {
  const failures = new Map<number, unknown>();
  const attempt = async (start: number, end: number): Promise<void> => {
    try {
      const part = start === 0 && end === items.length ? items : items.slice(start, end);
      await write(part as T[]);
    } catch (thrown) {
      const error = thrown ?? new Error("write failed");
      if (isMissingRunPartition(error)) {
        const described = describeMissingRunPartition(error);
        for (let index = start; index < end; index += 1) failures.set(index, described);
      } else if (!isRowError(error)) {
        for (let index = start; index < end; index += 1) failures.set(index, error);
      } else if (end - start === 1) {
        failures.set(start, new RejectedRowError(error));
      } else {
        const middle = start + Math.ceil((end - start) / 2);
        await attempt(start, middle);
        await attempt(middle, end);
      }
    }
  };
  if (items.length > 0) await attempt(0, items.length);
  return failures;
}
