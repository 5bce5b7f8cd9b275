import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { readEnv } from "@assay/core";
import { modelInfo, pathsInfo } from "@huggingface/hub";
import { HubError } from "../errors/hub-error.js";
import { ModelFolderError } from "../errors/model-folder-error.js";
import { type DownloadProgress, downloadHubFile, type HubConnection } from "./download-hub-file.js";
import { type ExpectedFile, fileMatches } from "./file-hash.js";
import { HubCache } from "./hub-cache.js";
import { type HubTarget, hubFailure } from "./hub-failure.js";
import { COMMIT_SHA, type HubSource } from "./hub-source.js";

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
  const settings = hubSettings(options);
  const cache = new HubCache(settings.cacheDir, source.id);
  const target: HubTarget = { ...source, hubUrl: settings.hubUrl };
  if (COMMIT_SHA.test(source.revision) && (await cache.verified(source.revision))) {
    return { dir: cache.folder(source.revision), sha: source.revision };
  }
  if (settings.offline) return offlineCopy(cache, source, "HF_HUB_OFFLINE is set");
  let sha: string;
  try {
    sha = await resolveRevision(target, settings.accessToken);
  } catch (error) {
    const failure = hubFailure(error, target);
    if (failure.failure !== "network") throw failure;
    return offlineCopy(cache, source, failure.message, failure);
  }
  const hub: HubConnection = {
    ...target,
    sha,
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
  for (const file of listed) {
    const path = join(cache.folder(hub.sha), file.path);
    if (!(await fileMatches(path, file))) await downloadHubFile(hub, file, cache.folder(hub.sha));
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

/** The checked copy a branch or tag last resolved to, when the Hub cannot be asked. */
async function offlineCopy(
  cache: HubCache,
  source: HubSource,
  why: string,
  failure?: HubError,
): Promise<HubModel> {
  const sha = COMMIT_SHA.test(source.revision) ? source.revision : await cache.ref(source.revision);
  if (sha !== null && (await cache.verified(sha))) return { dir: cache.folder(sha), sha };
  throw (
    failure ??
    new HubError(
      `${source.id}@${source.revision}`,
      "network",
      `${why} and no checked copy is cached in ${cache.root}; unset it to download the model`,
    )
  );
}

async function resolveRevision(
  target: HubTarget,
  accessToken: string | undefined,
): Promise<string> {
  const info = await modelInfo({
    name: target.id,
    revision: target.revision,
    hubUrl: target.hubUrl,
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

/** Size and hash of each file at the sha, from the Hub's file list; a required one missing is refused. */
async function listFiles(hub: HubConnection, files: HubFiles): Promise<ExpectedFile[]> {
  let entries: Awaited<ReturnType<typeof pathsInfo>>;
  try {
    entries = await pathsInfo({
      repo: { type: "model", name: hub.id },
      paths: [...files.required, ...files.optional],
      revision: hub.sha,
      hubUrl: hub.hubUrl,
      ...(hub.accessToken !== undefined && { accessToken: hub.accessToken }),
    });
  } catch (error) {
    throw hubFailure(error, { ...hub, revision: hub.sha });
  }
  const byPath = new Map(entries.filter((e) => e.type === "file").map((e) => [e.path, e]));
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

interface HubSettings {
  cacheDir: string;
  hubUrl: string;
  accessToken?: string;
  offline: boolean;
}

/**
 * The token the Hugging Face clients would send when HF_TOKEN is unset: the file at
 * HF_TOKEN_PATH, else $HF_HOME/token, else ~/.cache/huggingface/token, trimmed. Null when
 * that file does not exist or is empty.
 */
function tokenFile(env: ReturnType<typeof readEnv>): { path: string; token: string } | null {
  const path =
    env.HF_TOKEN_PATH ?? join(env.HF_HOME ?? join(homedir(), ".cache", "huggingface"), "token");
  let token: string;
  try {
    token = readFileSync(path, "utf8").trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new ModelFolderError(
      path,
      `cannot read the Hugging Face token file (${(error as Error).message}); fix its permissions, or set HF_TOKEN`,
    );
  }
  return token === "" ? null : { path, token };
}

/**
 * Options over the environment: ASSAY_MODEL_CACHE, HF_ENDPOINT, HF_TOKEN (else
 * HUGGING_FACE_HUB_TOKEN, its older name, else the token file) and HF_HUB_OFFLINE, as
 * huggingface_hub reads them.
 */
function hubSettings(options: HubOptions): HubSettings {
  const env = readEnv();
  const fromEnv = options.accessToken ?? env.HF_TOKEN ?? env.HUGGING_FACE_HUB_TOKEN;
  const file = fromEnv === undefined ? tokenFile(env) : null;
  const accessToken = fromEnv ?? file?.token;
  if (accessToken !== undefined && !accessToken.startsWith("hf_")) {
    throw new ModelFolderError(
      file?.path ?? "HF_TOKEN",
      "an access token starts with hf_; copy it from https://huggingface.co/settings/tokens",
    );
  }
  return {
    cacheDir:
      options.cacheDir ?? env.ASSAY_MODEL_CACHE ?? join(homedir(), ".cache", "assay", "models"),
    hubUrl: (options.hubUrl ?? env.HF_ENDPOINT ?? "https://huggingface.co").replace(/\/+$/, ""),
    ...(accessToken !== undefined && { accessToken }),
    offline: options.offline ?? env.HF_HUB_OFFLINE,
  };
}
