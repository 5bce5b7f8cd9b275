/**
 * Vitest global setup: the tests' scratch folders (os.tmpdir()) go to a folder of their own
 * on /dev/shm when that is a tmpfs with room, and the folder is removed after the run.
 *
 * Why: the suite creates and deletes hundreds of thousands of files (an embedded store is a
 * ~1,100-file cluster; models, datasets, spools). On this machine's ext4 each new file then
 * costs a scan past the recently deleted inodes in the kernel (ext4_create's
 * recently_deleted): opening an embedded store took ~0.8 s there against ~0.2 s on a tmpfs,
 * and the kernel's share was a third of the quick tests' CPU. Nothing here asserts what a
 * disk does: tests that fill a disk mount a tmpfs of their own size (support/tmpfs.ts).
 * A TMPDIR set by whoever runs the tests is kept: that is where they asked for scratch.
 */
import { chmodSync, mkdtempSync, rmSync, statfsSync } from "node:fs";
import { join } from "node:path";

const SHM = "/dev/shm";
const TMPFS_MAGIC = 0x01021994;
const ROOM_NEEDED = 4 * 1024 ** 3;

export default function scratchOnTmpfs(): (() => void) | undefined {
  if (process.env.TMPDIR) return undefined;
  const chosen = tmpfsWithRoom();
  if (chosen === undefined) return undefined;
  const scratch = mkdtempSync(join(chosen, "assay-tests-"));
  // Open to every user, sticky, as /tmp is: tests run servers as other users (initdb and
  // postgres as `postgres` when the tests run as root) in folders made under it.
  chmodSync(scratch, 0o1777);
  // Read by os.tmpdir() in this process, the test workers it forks and what they spawn.
  process.env.TMPDIR = scratch;
  return () => rmSync(scratch, { recursive: true, force: true });
}

function tmpfsWithRoom(): string | undefined {
  try {
    const info = statfsSync(SHM);
    return info.type === TMPFS_MAGIC && info.bavail * info.bsize >= ROOM_NEEDED ? SHM : undefined;
  } catch {
    return undefined;
  }
}
