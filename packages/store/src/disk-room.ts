import { statfsSync } from "node:fs";
import { dirname } from "node:path";
import { ConfigError } from "@assay/core";
import type { PGlite } from "@electric-sql/pglite";

/**
 * The embedded store stops writing while it still has this much room. A Postgres that
 * runs out of disk mid-write PANICs, and inside PGlite that leaves the process spinning on
 * its only thread: it no longer answers SIGTERM, and a later open of the store on the full
 * disk hangs the same way. So the store never lets it get there: 64 MB holds a new WAL
 * segment (16 MB), a batch, and the checkpoint that closing the store writes.
 */
export const MIN_FREE_BYTES = 64 * 1024 * 1024;

/**
 * What `assay prune` needs free to open the embedded store: it writes no rows, only a
 * mark per run and the catalog changes of dropping tables, so a WAL segment (16 MB) for
 * those and the checkpoint at close, and as much again to spare. A disk that a night's run
 * filled to the store's floor can then be freed by pruning old runs.
 */
export const PRUNE_MIN_FREE_BYTES = 32 * 1024 * 1024;

/** The disk under the embedded store is (nearly) full. */
export class DiskFullError extends ConfigError {
  override name = "DiskFullError";
}

const guarded = new WeakMap<PGlite, string>();

/** Checks the disk before every bulk write `client` makes from now on. */
export function guardDiskRoom(client: PGlite, location: string): void {
  guarded.set(client, location);
}

/** Throws DiskFullError when the disk under `client`'s store is short of room. */
export function assertRoomToWrite(client: PGlite): void {
  const location = guarded.get(client);
  if (location !== undefined) assertDiskRoom(location);
}

/**
 * Throws DiskFullError when the disk under `location` has less than `minFree` bytes free.
 * `location` may not exist yet (a new store): its parent's disk is the one it will be on.
 */
export function assertDiskRoom(location: string, minFree = MIN_FREE_BYTES): void {
  let free: number;
  try {
    const info = statfsSync(location);
    free = info.bavail * info.bsize;
  } catch {
    const info = statfsSync(dirname(location));
    free = info.bavail * info.bsize;
  }
  if (free >= minFree) return;
  const prune =
    minFree > PRUNE_MIN_FREE_BYTES && free >= PRUNE_MIN_FREE_BYTES
      ? " To free room in the store itself, `assay prune` drops old runs' raw rows (it needs " +
        `${megabytes(PRUNE_MIN_FREE_BYTES)} MB free).`
      : "";
  throw new DiskFullError(
    `The disk under the embedded store in ${location} is full: ${megabytes(free)} MB free, and the ` +
      `store stops writing below ${megabytes(minFree)} MB. What was stored stays stored; ` +
      `free some space and run the command again (a run resumes with the same --run-id).${prune}`,
  );
}

function megabytes(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
