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
  /** Sent for gated and private models. Default `HF_TOKEN`, else `HUGGING_FACE_HUB_TOKEN`. */
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
  if (!(await cache.verified(sha))) {
    const hub: HubConnection = {
      ...target,
      sha,
      ...(settings.accessToken !== undefined && { accessToken: settings.accessToken }),
      ...(options.onDownloadProgress !== undefined && { onProgress: options.onDownloadProgress }),
    };
    const listed = await listFiles(hub, files);
    for (const file of listed) {
      const path = join(cache.folder(sha), file.path);
      if (!(await fileMatches(path, file))) await downloadHubFile(hub, file, cache.folder(sha));
    }
    await cache.finish(sha, listed);
  }
  await cache.setRef(source.revision, sha);
  return { dir: cache.folder(sha), sha };
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
 * Options over the environment: ASSAY_MODEL_CACHE, HF_ENDPOINT, HF_TOKEN (else
 * HUGGING_FACE_HUB_TOKEN, its older name) and HF_HUB_OFFLINE, as huggingface_hub reads them.
 */
function hubSettings(options: HubOptions): HubSettings {
  const env = readEnv();
  const accessToken = options.accessToken ?? env.HF_TOKEN ?? env.HUGGING_FACE_HUB_TOKEN;
  if (accessToken !== undefined && !accessToken.startsWith("hf_")) {
    throw new ModelFolderError(
      "HF_TOKEN",
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
