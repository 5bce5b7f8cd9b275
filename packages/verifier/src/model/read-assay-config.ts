import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { firstIssue } from "@assay/core";
import { type AssayConfig, AssayConfigSchema } from "../config/assay-config.js";
import { ModelFolderError } from "../errors/model-folder-error.js";
import type { DeclaredAttention } from "../session/past-layout.js";

export async function readJsonFile(dir: string, name: string): Promise<unknown> {
  const path = join(dir, name);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    throw new ModelFolderError(path, "missing or unreadable");
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ModelFolderError(path, `not valid JSON: ${(error as Error).message}`);
  }
}

export async function readAssayConfig(dir: string): Promise<AssayConfig> {
  const parsed = AssayConfigSchema.safeParse(await readJsonFile(dir, "assay.json"));
  if (!parsed.success) {
    const { field, message } = firstIssue(parsed.error);
    throw new ModelFolderError(join(dir, "assay.json"), message, field);
  }
  return parsed.data;
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
