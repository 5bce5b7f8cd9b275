import { constants } from "node:fs";
import { lstat, open, readdir, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { downloadFile, fileDownloadInfo } from "@huggingface/hub";
import { HubError } from "../errors/hub-error.js";
import { type ExpectedFile, etagHash, FileHasher, hashFile } from "./file-hash.js";
import { foldersInside } from "./folder-inside.js";
import { type HubTarget, hubFailure } from "./hub-failure.js";
import type { HubFetch } from "./hub-fetch.js";
import { pathInside } from "./repo-path.js";

/** How far one file's download has come; sent as its bytes arrive. */
export interface DownloadProgress {
  /** `owner/name`. */
  id: string;
  /** The file's path in the repository. */
  file: string;
  /** Bytes on disk so far, a resumed part included. */
  received: number;
  total: number;
}

export interface HubConnection extends HubTarget {
  /** The resolved commit sha every file is fetched at. */
  sha: string;
  /** The fetch of every request: endpoint credentials, and retries of a busy Hub. */
  requests: HubFetch;
  accessToken?: string;
  onProgress?: (progress: DownloadProgress) => void;
}

/**
 * Fetches one file at the pinned sha into `dir`, streamed to `<file>.<pid>.incomplete` and
 * renamed into place only once its size and hash check: a process killed or a connection
 * cut half way leaves only the `.incomplete` part, which no load trusts and the next
 * download resumes with a Range request (from zero, if the resumed whole does not check).
 *
 * `downloadFileToCacheDir` and `snapshotDownload` are not used: they rename a download into
 * place without checking its hash, and report no progress. Their parts are: `fileDownloadInfo`
 * (size, ETag, CDN redirect, xet) and `downloadFile`, whose blob streams and slices by Range.
 */
export async function downloadHubFile(
  hub: HubConnection,
  expected: ExpectedFile,
  dir: string,
): Promise<void> {
  const target = pathInside(dir, expected.path);
  const link = await foldersInside(dir, expected.path);
  if (link !== null) {
    throw new HubError(
      `${hub.id}@${hub.sha}/${expected.path}`,
      "unsafe-path",
      `refused: the cache holds a symbolic link (or a file) at ${link}, where a folder of the model belongs; nothing was written through it. Delete ${link} and run the command again`,
    );
  }
  const partial = await claimPart(target);
  const resumeFrom = await usablePart(partial, expected.size);
  let mismatch = await fetchInto(hub, expected, partial, resumeFrom);
  // A resumed part that does not check may hold bytes of an older attempt: start over once.
  if (mismatch !== null && resumeFrom > 0) mismatch = await fetchInto(hub, expected, partial, 0);
  if (mismatch !== null) throw integrityError(hub, expected, mismatch);
  await rename(partial, target);
}

/**
 * Writes the file's bytes from `from` on. Null when the whole checks; else what differs,
 * and the part is removed.
 */
async function fetchInto(
  hub: HubConnection,
  expected: ExpectedFile,
  partial: string,
  from: number,
): Promise<string | null> {
  const hasher = new FileHasher(expected);
  if (from > 0) await hashFile(partial, hasher, from);
  const blob = await openBlob(hub, expected);
  const report = (received: number) =>
    hub.onProgress?.({ id: hub.id, file: expected.path, received, total: expected.size });
  report(from);
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hasher.update(chunk);
      report(hasher.bytes);
      done(null, chunk);
    },
  });
  const body = (from > 0 ? blob.slice(from) : blob).stream() as WebReadableStream<Uint8Array>;
  try {
    const file = await open(partial, writeFlags(from));
    await pipeline(Readable.fromWeb(body), counter, file.createWriteStream({ start: from }));
  } catch (error) {
    // A busy Hub's give-up reaches here as a bare message (the blob keeps only that).
    const busy = hub.requests.takeBusy();
    if (busy !== null) throw hubFailure(busy, { ...hub, revision: hub.sha }, expected.path);
    if (isDiskFull(error)) {
      // A part that cannot be finished here only holds the space the user must free.
      await rm(partial, { force: true });
      throw new HubError(
        `${hub.id}@${hub.sha}/${expected.path}`,
        "disk",
        `the disk is full: could not write ${partial} after ${hasher.bytes} of ${expected.size} bytes (${(error as Error).message}); the part was deleted and nothing was kept as the model. Free space on that disk, or set ASSAY_MODEL_CACHE to a folder on a disk with room, and run the command again`,
      );
    }
    throw new HubError(
      `${hub.id}@${hub.sha}/${expected.path}`,
      "network",
      `the download was cut after ${hasher.bytes} of ${expected.size} bytes (${describe(error)}); nothing was kept as the model. Run the command again: it resumes from ${partial}`,
    );
  }
  const mismatch = hasher.mismatch();
  if (mismatch !== null) await rm(partial, { force: true });
  return mismatch;
}

/** Write flags that never follow a link planted where the part goes; resuming keeps the bytes. */
function writeFlags(from: number): number {
  const { O_WRONLY, O_CREAT, O_TRUNC, O_NOFOLLOW } = constants;
  return O_WRONLY | O_CREAT | O_NOFOLLOW | (from > 0 ? 0 : O_TRUNC);
}

function integrityError(hub: HubConnection, expected: ExpectedFile, why: string): HubError {
  return new HubError(
    `${hub.id}@${hub.sha}/${expected.path}`,
    "integrity",
    `refused: the downloaded file has ${why}; it was deleted, not used. A proxy or mirror (HF_ENDPOINT) may be serving other bytes`,
  );
}

/** The file as a streamable blob; its ETag must agree with the hash the file list gave. */
async function openBlob(hub: HubConnection, expected: ExpectedFile): Promise<Blob> {
  const params = {
    repo: { type: "model" as const, name: hub.id },
    path: expected.path,
    revision: hub.sha,
    hubUrl: hub.hubUrl,
    fetch: hub.requests.fetch,
    ...(hub.accessToken !== undefined && { accessToken: hub.accessToken }),
  };
  try {
    const info = await fileDownloadInfo(params);
    if (info === null)
      throw new HubError(
        `${hub.id}@${hub.sha}/${expected.path}`,
        "not-found",
        "the Hub answered 404: no such file at this revision",
      );
    const etag = etagHash(info.etag);
    const listed = expected.sha256 ?? expected.gitSha1;
    if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(etag) && listed !== undefined && etag !== listed) {
      throw new HubError(
        `${hub.id}@${hub.sha}/${expected.path}`,
        "integrity",
        `refused: the Hub's ETag ${etag} differs from the hash its file list gives (${listed})`,
      );
    }
    const blob = await downloadFile({ ...params, downloadInfo: info });
    if (blob === null) throw new Error("no file");
    return blob;
  } catch (error) {
    throw hubFailure(error, { ...hub, revision: hub.sha }, expected.path);
  }
}

/**
 * This process's part of `target`. The part of an earlier attempt, by this process or by one
 * that has ended, is taken over (renamed: one process wins it) to be resumed; a part whose
 * process still runs is left to it, so two workers loading one model never write one file.
 */
async function claimPart(target: string): Promise<string> {
  const mine = `${target}.${process.pid}.incomplete`;
  const prefix = `${basename(target)}.`;
  let claimed = false;
  for (const name of await readdir(dirname(target))) {
    if (!name.startsWith(prefix) || !name.endsWith(".incomplete")) continue;
    const pid = Number(name.slice(prefix.length, -".incomplete".length));
    if (!Number.isInteger(pid) || pid === process.pid || isRunning(pid)) continue;
    const part = join(dirname(target), name);
    if (claimed) await rm(part, { force: true });
    else
      claimed = await rename(part, mine).then(
        () => true,
        () => false,
      );
  }
  return mine;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Bytes of an earlier attempt's part worth resuming from: 0 when none, or one too long, or
 * one that is not a plain file (a link planted there is removed, not followed).
 */
async function usablePart(partial: string, size: number): Promise<number> {
  try {
    const part = await lstat(partial);
    if (part.isFile() && part.size < size) return part.size;
  } catch {
    return 0;
  }
  await rm(partial, { force: true });
  return 0;
}

/** A write refused for want of space (ENOSPC) or of quota (EDQUOT). */
function isDiskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === "ENOSPC" || code === "EDQUOT";
}

function describe(error: unknown): string {
  const cause = (error as Error).cause;
  const message = typeof error === "string" ? error : (error as Error).message;
  return cause instanceof Error ? `${message}: ${cause.message}` : message;
}
