import {
  closeSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { link, readFile, rename, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { ConfigError } from "@assay/core";
import { isRunning } from "./process-alive.js";

/**
 * PGlite is one Postgres in one process: two processes on one folder each keep their own
 * copy in memory and overwrite each other's files, so a run could report rows that the
 * other process then wiped. One process at a time holds the folder, through a lock file
 * beside it created with O_EXCL. The file names its holder's pid and start time, so a lock
 * left by a killed process (SIGKILL runs no clean-up) is seen as stale and taken over.
 */

/** Another live process holds the embedded store. */
export class StoreInUseError extends ConfigError {
  override name = "StoreInUseError";
}

export interface LockHolder {
  pid: number;
  host: string;
  /** The holder's start time (Linux clock ticks since boot): tells a reused pid apart. */
  started: string | null;
  command: string;
  since: string;
}

export interface StoreLockOptions {
  /** What the holder is doing, shown to whoever finds the store held ("assay run"). */
  command: string;
  /** Wait this long for the holder to finish; 0 refuses at once. */
  waitMs: number;
  /** Told once when the store is held and the wait begins. */
  onWait?: (holder: LockHolder) => void;
}

export interface StoreLock {
  release(): Promise<void>;
}

const POLL_MS = 250;

export function lockPathOf(location: string): string {
  return `${location}.lock`;
}

export async function lockStoreFolder(
  location: string,
  options: StoreLockOptions,
): Promise<StoreLock> {
  const path = lockPathOf(location);
  const mine: LockHolder = {
    pid: process.pid,
    host: hostname(),
    started: startTimeOf(process.pid),
    command: options.command,
    since: new Date().toISOString(),
  };
  const deadline = Date.now() + options.waitMs;
  let told = false;
  for (;;) {
    if (tryCreate(path, mine)) return heldLock(path, mine);
    const holder = await readHolder(path);
    if (holder === undefined) continue; // released between our attempt and the read
    if (isStale(holder)) {
      await removeStale(path, holder);
      continue;
    }
    if (Date.now() >= deadline) throw inUse(location, holder, options.waitMs);
    if (!told) {
      options.onWait?.(holder);
      told = true;
    }
    await sleep(POLL_MS);
  }
}

function inUse(location: string, holder: LockHolder, waitedMs: number): StoreInUseError {
  const waited = waitedMs > 0 ? ` (waited ${Math.round(waitedMs / 1000)} s)` : "";
  return new StoreInUseError(
    `The embedded store in ${location} is in use by ${describeHolder(holder)}${waited}: ` +
      "one process at a time can use it. Wait for it to finish, or pass another --db folder.",
  );
}

export function describeHolder(holder: LockHolder): string {
  const where = holder.host === hostname() ? "" : ` on ${holder.host}`;
  return `\`${holder.command}\` (pid ${holder.pid}${where}, since ${holder.since})`;
}

/**
 * The holder's record is written to a file of its own and hard-linked into place: link()
 * fails when the lock exists, so of two processes exactly one succeeds, and the lock file
 * never exists without its record (an empty one, seen mid-write, would look stale).
 */
function tryCreate(path: string, mine: LockHolder): boolean {
  const record = `${path}.${process.pid}.tmp`;
  try {
    const fd = openSync(record, "w");
    try {
      writeSync(fd, JSON.stringify(mine));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    linkSync(record, path);
    return true;
  } catch (error) {
    if ((error as { code?: unknown }).code === "EEXIST") return false;
    throw new ConfigError(
      `Cannot create the lock file ${path} of the embedded store: ${(error as Error).message}.`,
    );
  } finally {
    rmSync(record, { force: true });
  }
}

async function readHolder(path: string): Promise<LockHolder | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    return JSON.parse(text) as LockHolder;
  } catch {
    // Unreadable (the disk garbled it): it names no live holder.
    return { pid: 0, host: hostname(), started: null, command: "unknown", since: "" };
  }
}

/** Stale: written on this machine by a process that is gone (or a new one with its pid). */
function isStale(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return false; // cannot tell: treat as held
  if (!(Number.isInteger(holder.pid) && holder.pid > 0 && isRunning(holder.pid))) return true;
  const started = startTimeOf(holder.pid);
  return holder.started !== null && started !== null && started !== holder.started;
}

/**
 * Moves the stale file aside before deleting it, so that of two processes taking over at
 * once, only one removes it; one that finds a live holder's file there instead puts it back.
 */
async function removeStale(path: string, stale: LockHolder): Promise<void> {
  const aside = `${path}.stale-${process.pid}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return;
    throw error;
  }
  const moved = await readHolder(aside);
  if (moved !== undefined && moved.pid !== stale.pid) await link(aside, path).catch(() => {});
  await unlink(aside).catch(() => {});
}

function heldLock(path: string, mine: LockHolder): StoreLock {
  // A process that exits without closing the store (process.exit) still lets it go.
  const onExit = () => releaseSync(path, mine);
  process.once("exit", onExit);
  return {
    async release() {
      process.off("exit", onExit);
      releaseSync(path, mine);
    },
  };
}

function releaseSync(path: string, mine: LockHolder): void {
  try {
    const holder = JSON.parse(readFileSync(path, "utf8")) as LockHolder;
    if (holder.pid === mine.pid && holder.since === mine.since) unlinkSync(path);
  } catch {
    // Gone already, or another's: nothing of ours to remove.
  }
}

/** Field 22 of /proc/<pid>/stat; null where there is no /proc. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count from the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null;
  } catch {
    return null;
  }
}
