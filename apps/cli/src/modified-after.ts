import type { Stats } from "node:fs";

/**
 * Whether a file was modified after a run started. `Stats.mtime` rounds the file's time to
 * the nearest millisecond, so a file written in the millisecond the run started read as
 * written after it about half the time; a run's start is read back truncated to the
 * millisecond, so the file's time is truncated too.
 */
export function modifiedAfter(info: Stats, startedAt: string | Date): boolean {
  return Math.floor(info.mtimeMs) > new Date(startedAt).getTime();
}
