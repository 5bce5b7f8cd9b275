import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { firstIssue, formatPath, parseJsonConfig, parseJsonText } from "@assay/core";
import { type AssayConfig, AssayConfigSchema } from "../config/assay-config.js";
import { ModelFolderError } from "../errors/model-folder-error.js";
import type { DeclaredAttention } from "../session/past-layout.js";

/** A JSON file of the model folder. A refusal names the file and never quotes it. */
export function readJsonFile(dir: string, name: string): Promise<unknown> {
  return readJsonPath(join(dir, name));
}

/** A JSON file at `path` (one that assay.json names must be checked with `folderFile` first). */
export async function readJsonPath(path: string): Promise<unknown> {
  const parsed = parseJsonText(await readText(path));
  if (!parsed.ok) throw new ModelFolderError(path, parsed.message);
  return parsed.value;
}

/**
 * assay.json, checked as a dataset line is (keys written twice, `__proto__`, NUL, depth,
 * numbers), then against its schema.
 */
export async function readAssayConfig(dir: string): Promise<AssayConfig> {
  const file = join(dir, "assay.json");
  const document = parseJsonConfig(await readText(file));
  if (!document.ok) {
    throw new ModelFolderError(file, document.message, formatPath(document.path));
  }
  const parsed = AssayConfigSchema.safeParse(document.value);
  if (!parsed.success) {
    const { field, message } = firstIssue(parsed.error, undefined, "");
    throw new ModelFolderError(file, message, field);
  }
  return parsed.data;
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch {
    throw new ModelFolderError(path, "missing or unreadable");
  }
}

/** Hidden size from config.json under the names common architectures use; null if absent. */
export async function readHiddenSize(dir: string): Promise<number | null> {
  const config = (await readJsonFile(dir, "config.json")) as Record<string, unknown>;
  for (const key of ["hidden_size", "d_model", "n_embd", "dim"]) {
    const value = config[key];
    if (typeof value === "number") return value;
  }
  return null;
}

/** Key/value heads and head size from config.json, for a cache the graph leaves symbolic. */
export async function readAttentionSizes(dir: string): Promise<DeclaredAttention> {
  const config = (await readJsonFile(dir, "config.json")) as Record<string, unknown>;
  const number = (key: string) =>
    typeof config[key] === "number" ? (config[key] as number) : null;
  const heads = number("num_attention_heads") ?? number("n_head");
  const hidden = await readHiddenSize(dir);
  return {
    kvHeads: number("num_key_value_heads") ?? heads,
    headDim: number("head_dim") ?? (heads !== null && hidden !== null ? hidden / heads : null),
  };
}
