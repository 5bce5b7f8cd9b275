import { printable } from "@assay/core";
import { modelInfo, pathsInfo } from "@huggingface/hub";
import { HubError } from "../errors/hub-error.js";
import { ModelFolderError } from "../errors/model-folder-error.js";
import { type DownloadProgress, downloadHubFile, type HubConnection } from "./download-hub-file.js";
import { type ExpectedFile, fileMatches } from "./file-hash.js";
import { HubCache } from "./hub-cache.js";
import { type HubTarget, hubFailure } from "./hub-failure.js";
import { HubFetch } from "./hub-fetch.js";
import { hubSettings } from "./hub-settings.js";
import { COMMIT_SHA, type HubSource, hubIdProblem } from "./hub-source.js";
import { pathInside, unsafeRepoPath } from "./repo-path.js";

export interface HubOptions {
  /** Where hub models are cached. Default `ASSAY_MODEL_CACHE`, else `~/.cache/assay/models`. */
  cacheDir?: string;
  /** The Hub's address. Default `HF_ENDPOINT`, else https://huggingface.co */
  hubUrl?: string;
  /**
   * Sent for gated and private models. Default `HF_TOKEN`, else `HUGGING_FACE_HUB_TOKEN`,
   * else the token file (`HF_TOKEN_PATH`, else `$HF_HOME/token`, else
   * `~/.cache/huggingface/token`: where `hf auth login` writes it).
   */
  accessToken?: string;
  /** Use only what is cached, never the network. Default: `HF_HUB_OFFLINE` is 1. */
  offline?: boolean;
  /**
   * Seconds this load may spend, in all, waiting on a busy Hub (429, 502, 503, 504, with
   * its Retry-After honoured) before it fails. Default `ASSAY_HUB_RETRY_WAIT`, else 300;
   * 0 never asks again.
   */
  retryWaitSeconds?: number;
  /** Called as each file's bytes arrive (a cached model sends nothing). */
  onDownloadProgress?: (progress: DownloadProgress) => void;
}

/** A hub model on disk: its folder and the commit its files are from. */
export interface HubModel {
  dir: string;
  sha: string;
}

/** The files a verifier folder needs, and those it may have. */
export interface HubFiles {
  required: readonly string[];
  optional: readonly string[];
}

/**
 * The folder of a hub model at one commit: the revision (branch, tag or sha) is resolved
 * to a sha once, and every file is fetched at that sha. A cached folder is used without the
 * network when it is that sha's and every file still hashes to what the Hub listed; with
 * no network (or `offline`), a branch or tag falls back on the sha it last resolved to.
 */
export async function resolveHubModel(
  source: HubSource,
  files: HubFiles,
  options: HubOptions = {},
): Promise<HubModel> {
  const problem = hubIdProblem(source.id);
  if (problem !== null) {
    throw new ModelFolderError(source.id, `is not a Hugging Face Hub id: ${problem}`);
  }
  const settings = hubSettings(options);
  const cache = new HubCache(settings.cacheDir, source.id);
  const target: HubTarget = { ...source, hubUrl: settings.endpoint.url, auth: settings.auth };
  if (COMMIT_SHA.test(source.revision) && (await cache.verified(source.revision))) {
    return { dir: cache.folder(source.revision), sha: source.revision };
  }
  if (settings.offline) return offlineCopy(cache, source, "HF_HUB_OFFLINE is set");
  const requests = new HubFetch(settings.endpoint, settings.retry);
  let sha: string;
  try {
    sha = await resolveRevision(target, requests, settings.accessToken);
  } catch (error) {
    const failure = hubFailure(error, target);
    // Unreachable or still busy: the copy a branch last resolved to serves, as in huggingface_hub.
    if (failure.failure !== "network" && failure.failure !== "busy") throw failure;
    return offlineCopy(cache, source, failure.message, failure);
  }
  const hub: HubConnection = {
    ...target,
    sha,
    requests,
    ...(settings.accessToken !== undefined && { accessToken: settings.accessToken }),
    ...(options.onDownloadProgress !== undefined && { onProgress: options.onDownloadProgress }),
  };
  try {
    await onceInThisProcess(cache.folder(sha), () => downloadCommit(cache, hub, files));
    await cache.setRef(source.revision, sha);
  } catch (error) {
    throw diskFailure(error, hub) ?? error;
  }
  return { dir: cache.folder(sha), sha };
}

/** Fetches every file of the commit that is not already in place and checked, then the manifest. */
async function downloadCommit(cache: HubCache, hub: HubConnection, files: HubFiles): Promise<void> {
  if (await cache.verified(hub.sha)) return;
  const listed = await listFiles(hub, files);
  const dir = cache.folder(hub.sha);
  for (const file of listed) {
    if (!(await fileMatches(pathInside(dir, file.path), file)))
      await downloadHubFile(hub, file, dir);
  }
  await cache.finish(hub.sha, listed);
}

/**
 * Loads of one commit in this process share one download (two scorers naming one model):
 * parts are per process, so two downloads here would write the same part.
 */
const downloading = new Map<string, Promise<void>>();

async function onceInThisProcess(key: string, download: () => Promise<void>): Promise<void> {
  let running = downloading.get(key);
  if (running === undefined) {
    running = download().finally(() => downloading.delete(key));
    downloading.set(key, running);
  }
  await running;
}

/** A write the full disk refused outside a file's download (a folder, the manifest, a ref). */
function diskFailure(error: unknown, hub: HubConnection): HubError | null {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (error instanceof HubError || (code !== "ENOSPC" && code !== "EDQUOT")) return null;
  const path = (error as NodeJS.ErrnoException).path ?? "the model cache";
  return new HubError(
    `${hub.id}@${hub.sha}`,
    "disk",
    `the disk is full: could not write ${path} (${(error as Error).message}); nothing was kept as the model. Free space on that disk, or set ASSAY_MODEL_CACHE to a folder on a disk with room, and run the command again`,
  );
}

/**
 * The checked copy a branch or tag last resolved to, when the Hub cannot be asked. A copy
 * that fails its check is named with the file that fails, not taken for a missing one.
 */
async function offlineCopy(
  cache: HubCache,
  source: HubSource,
  why: string,
  failure?: HubError,
): Promise<HubModel> {
  const sha = COMMIT_SHA.test(source.revision) ? source.revision : await cache.ref(source.revision);
  const copy = sha === null ? ({ state: "absent" } as const) : await cache.check(sha);
  if (sha !== null && copy.state === "checked") return { dir: cache.folder(sha), sha };
  const what = `${source.id}@${source.revision}`;
  if (sha !== null && copy.state === "failed") {
    const cached = `the cached copy of ${sha} in ${cache.folder(sha)} fails its check: ${copy.why}`;
    const remedy = failure === undefined ? "; unset HF_HUB_OFFLINE to download it again" : "";
    const message = `${failure === undefined ? why : failure.reason}; ${cached}${remedy}`;
    throw new HubError(what, failure?.failure ?? "integrity", message);
  }
  throw (
    failure ??
    new HubError(
      what,
      "network",
      `${why} and no checked copy is cached in ${cache.root}; unset it to download the model`,
    )
  );
}

async function resolveRevision(
  target: HubTarget,
  requests: HubFetch,
  accessToken: string | undefined,
): Promise<string> {
  const info = await modelInfo({
    name: target.id,
    revision: target.revision,
    hubUrl: target.hubUrl,
    fetch: requests.fetch,
    additionalFields: ["sha"],
    ...(accessToken !== undefined && { accessToken }),
  });
  if (typeof info.sha !== "string" || !COMMIT_SHA.test(info.sha)) {
    throw new HubError(
      `${target.id}@${target.revision}`,
      "not-found",
      `the Hub at ${target.hubUrl} gave no commit sha for this revision`,
    );
  }
  return info.sha;
}

/**
 * Size and hash of each file asked for at the sha, from the Hub's file list. Every path the
 * list names is checked before any byte is written: one that could lead out of the model's
 * folder refuses the whole list. Entries not asked for are not downloaded; a required file
 * missing is refused.
 */
async function listFiles(hub: HubConnection, files: HubFiles): Promise<ExpectedFile[]> {
  let entries: Awaited<ReturnType<typeof pathsInfo>>;
  try {
    entries = await pathsInfo({
      repo: { type: "model", name: hub.id },
      paths: [...files.required, ...files.optional],
      revision: hub.sha,
      hubUrl: hub.hubUrl,
      fetch: hub.requests.fetch,
      ...(hub.accessToken !== undefined && { accessToken: hub.accessToken }),
    });
  } catch (error) {
    throw hubFailure(error, { ...hub, revision: hub.sha });
  }
  for (const [index, entry] of entries.entries()) refuseUnsafePath(hub, entry.path, index);
  const wanted = new Set<string>([...files.required, ...files.optional]);
  const byPath = new Map(
    entries.filter((e) => e.type === "file" && wanted.has(e.path)).map((e) => [e.path, e]),
  );
  const missing = files.required.filter((path) => !byPath.has(path));
  if (missing.length > 0) {
    throw new HubError(
      `${hub.id}@${hub.sha}`,
      "not-found",
      `the repository has no ${missing.join(", ")} at this revision; a verifier needs ${files.required.join(", ")} (see packages/verifier/README.md)`,
    );
  }
  return [...byPath.values()].map((entry) => ({
    path: entry.path,
    size: entry.lfs?.size ?? entry.size,
    ...(entry.lfs !== undefined
      ? { sha256: entry.lfs.oid }
      : entry.oid !== undefined && { gitSha1: entry.oid }),
  }));
}

function refuseUnsafePath(hub: HubConnection, path: unknown, index: number): void {
  const why = unsafeRepoPath(path);
  if (why === null) return;
  const shown = typeof path === "string" ? printable(path) : JSON.stringify(path);
  throw new HubError(
    `${hub.id}@${hub.sha}`,
    "unsafe-path",
    `refused: entry ${index + 1} of the Hub's file list (paths-info) names the path \`${shown}\`, which ${why}: a file there could land outside the model's folder. Nothing was downloaded. The Hub at ${hub.hubUrl} (HF_ENDPOINT) is misconfigured or hostile; use another mirror, or a local folder`,
    "path",
  );
}
