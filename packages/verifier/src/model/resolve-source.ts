import { stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ModelFolderError } from "../errors/model-folder-error.js";
import { parseHubSource } from "../hub/hub-source.js";
import { type HubOptions, resolveHubModel } from "../hub/resolve-hub-model.js";

export const MODEL_FILES = [
  "config.json",
  "tokenizer.json",
  "tokenizer_config.json",
  "assay.json",
  "onnx/model.onnx",
] as const;
const OPTIONAL_FILES = ["onnx/model.onnx_data"] as const;

export type ResolveOptions = HubOptions;

/** A model folder on disk, and the Hub commit its files came from (null: a local folder). */
export interface ModelSource {
  dir: string;
  revision: string | null;
}

/**
 * A local folder as is, or a Hugging Face Hub id (`owner/name`, `owner/name@revision`)
 * downloaded at one commit into the cache (see `resolveHubModel`).
 */
export async function resolveModelSource(
  source: string,
  options: ResolveOptions = {},
): Promise<ModelSource> {
  if (await isDirectory(source)) return { dir: await checkFolder(resolve(source)), revision: null };
  const hub = parseHubSource(source);
  if (hub === null) {
    throw new ModelFolderError(
      source,
      "no such model folder (pass a local folder in the Hugging Face layout, or a hub id like owner/name or owner/name@revision)",
    );
  }
  const files = { required: MODEL_FILES, optional: OPTIONAL_FILES };
  const { dir, sha } = await resolveHubModel(hub, files, options);
  return { dir: await checkFolder(dir), revision: sha };
}

/** The folder of `resolveModelSource`. */
export async function resolveModelDir(
  source: string,
  options: ResolveOptions = {},
): Promise<string> {
  return (await resolveModelSource(source, options)).dir;
}

async function checkFolder(dir: string): Promise<string> {
  for (const file of MODEL_FILES) {
    if (!(await exists(join(dir, file)))) {
      throw new ModelFolderError(
        join(dir, file),
        `missing; a model folder needs ${MODEL_FILES.join(", ")} (see packages/verifier/README.md)`,
      );
    }
  }
  return dir;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
