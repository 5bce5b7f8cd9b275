import { realpathSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";

/**
 * `owner/name` or `owner/name@revision`, the forms of a Hugging Face Hub id (the verifier
 * loader's rule too).
 */
const HUB_ID = /^[\w.-]+\/[\w.-]+(?:@[^\s@]+)?$/;

/**
 * What a verifier model is, whatever the spelling that names it: a folder on this machine
 * is its real absolute path (`./models/v`, `models/v/` and a link to it are one model), a
 * hub id is the id as written (its commit sha goes into each score's `detail.revision`),
 * and a folder this machine does not have is its absolute path as written. One identity
 * serves three things: the model's GPU queue (the producer and the worker agree on it),
 * the model named in usage rows (`assay run` and a GPU worker record the same one), and
 * the price a price table gives it (`priceTableWithIdentities`).
 *
 * It holds no hash of the model's files, on purpose: the producer names the queue, and it
 * often has no copy of a model only the GPU machines have; a price table must name the
 * model without its files at hand; and two folders at two paths are two queues anyway.
 */
export function modelIdentity(source: string, cwd = process.cwd()): string {
  const path = resolve(cwd, source);
  if (isDirectory(path)) return realpathSync(path);
  if (HUB_ID.test(source) && !source.startsWith(".")) return source;
  return path;
}

/**
 * Whether a name can only be a path: it names a folder here, or it is written as a path
 * (absolute, or starting with "."), never as a hub id or a generator's model name.
 */
export function isModelPath(name: string, cwd = process.cwd()): boolean {
  return isAbsolute(name) || name.startsWith(".") || isDirectory(resolve(cwd, name));
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
