import { realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";

/**
 * `owner/name` or `owner/name@revision`, the forms of a Hugging Face Hub id (the verifier
 * loader's rule too).
 */
const HUB_ID = /^[\w.-]+\/[\w.-]+(?:@[^\s@]+)?$/;

/**
 * What a verifier model is, whatever the spelling that names it: a folder on this machine
 * is its real absolute path (`./models/v`, `models/v/` and a link to it are one model), a
 * hub id is the id, and a folder this machine does not have is its absolute path as
 * written. A spec's `args.model` and a GPU worker's `--model` that name one model get one
 * identity, so the producer and the worker agree on the model's queue.
 */
export function modelIdentity(source: string, cwd = process.cwd()): string {
  const path = resolve(cwd, source);
  if (isDirectory(path)) return realpathSync(path);
  if (HUB_ID.test(source) && !source.startsWith(".")) return source;
  return path;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
