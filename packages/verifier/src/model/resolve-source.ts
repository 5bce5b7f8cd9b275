import { mkdir, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { ModelFolderError } from "../errors/model-folder-error.js";

export const MODEL_FILES = [
  "config.json",
  "tokenizer.json",
  "tokenizer_config.json",
  "assay.json",
  "onnx/model.onnx",
] as const;
const OPTIONAL_FILES = ["onnx/model.onnx_data"] as const;
const HUB_ID = /^[\w.-]+\/[\w.-]+$/;

export interface ResolveOptions {
  /** Where hub models are cached. Default `~/.cache/assay/models`. */
  cacheDir?: string;
  /** Hub base URL. Default https://huggingface.co */
  hubUrl?: string;
}

/** A local folder as is, or a Hugging Face Hub id downloaded once into the cache. */
export async function resolveModelDir(
  source: string,
  options: ResolveOptions = {},
): Promise<string> {
  if (await isDirectory(source)) return checkFolder(resolve(source));
  if (!HUB_ID.test(source) || source.startsWith(".")) {
    throw new ModelFolderError(
      source,
      "no such model folder (pass a local folder in the Hugging Face layout, or a hub id like owner/name)",
    );
  }
  const cacheDir = options.cacheDir ?? join(homedir(), ".cache", "assay", "models");
  const dir = join(cacheDir, source.replace("/", "--"));
  if (await hasFiles(dir)) return dir;
  await download(source, dir, options.hubUrl ?? "https://huggingface.co");
  return checkFolder(dir);
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

async function download(id: string, dir: string, hubUrl: string): Promise<void> {
  for (const file of [...MODEL_FILES, ...OPTIONAL_FILES]) {
    const url = `${hubUrl}/${id}/resolve/main/${file}`;
    let response: Response;
    try {
      response = await fetch(url, { signal: AbortSignal.timeout(60_000) });
    } catch (error) {
      const cause =
        (error as Error).cause instanceof Error
          ? ((error as Error).cause as Error).message
          : (error as Error).message;
      throw new ModelFolderError(
        id,
        `cannot reach the Hugging Face Hub (${cause}); hub ids need the network. Download the model on a connected machine and pass its local folder instead, e.g. --model ./models/${id.split("/")[1]}`,
      );
    }
    if (!response.ok) {
      if (OPTIONAL_FILES.includes(file as (typeof OPTIONAL_FILES)[number])) continue;
      throw new ModelFolderError(
        `${id}/${file}`,
        `the hub answered ${response.status} for ${url}; does the repository ship ${file}?`,
      );
    }
    const target = join(dir, file);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, new Uint8Array(await response.arrayBuffer()));
  }
}

async function hasFiles(dir: string): Promise<boolean> {
  for (const file of MODEL_FILES) if (!(await exists(join(dir, file)))) return false;
  return true;
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
