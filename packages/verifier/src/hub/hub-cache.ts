import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { type ExpectedFile, fileMismatch } from "./file-hash.js";
import { COMMIT_SHA } from "./hub-source.js";
import { pathInside, unsafeRepoPath } from "./repo-path.js";

/** The record a finished download leaves in its folder: which commit, which bytes. */
const MANIFEST = ".assay-hub.json";

const ManifestSchema = z.object({
  id: z.string(),
  sha: z.string(),
  files: z.array(
    z.object({
      // Read back from disk, so as untrusted as the Hub's list it was made from.
      path: z.string().refine((path) => unsafeRepoPath(path) === null),
      size: z.number(),
      sha256: z.string().optional(),
      gitSha1: z.string().optional(),
    }),
  ),
});
type Manifest = z.infer<typeof ManifestSchema>;

/** What the cache holds for one commit: nothing finished, a copy that fails its check (why), or a checked copy. */
export type CachedCopy =
  | { state: "absent" }
  | { state: "failed"; why: string }
  | { state: "checked" };

/**
 * The cache of one hub model: `<cacheDir>/<owner>--<name>/<sha>/` per commit, so a folder
 * is pinned to the commit its files came from, and `refs/<revision>` holding the sha a
 * branch or tag last resolved to (what an offline load falls back on).
 */
export class HubCache {
  readonly root: string;

  constructor(
    cacheDir: string,
    readonly id: string,
  ) {
    this.root = join(cacheDir, id.replace("/", "--"));
  }

  /** The folder of a commit; only a full sha names one, so no other text becomes a path. */
  folder(sha: string): string {
    if (!COMMIT_SHA.test(sha)) throw new Error(`not a commit sha: ${JSON.stringify(sha)}`);
    return join(this.root, sha);
  }

  /**
   * Whether the folder of `sha` holds a finished download whose every file still hashes to
   * what the Hub listed. Only then is it used without the network.
   */
  async verified(sha: string): Promise<boolean> {
    return (await this.check(sha)).state === "checked";
  }

  /** The folder of `sha` checked as `verified` does, saying what fails. */
  async check(sha: string): Promise<CachedCopy> {
    const read = await this.#manifest(sha);
    if (read === null) return { state: "absent" };
    if (typeof read === "string") return { state: "failed", why: read };
    if (read.sha !== sha || read.id !== this.id) {
      return { state: "failed", why: `its ${MANIFEST} is for ${read.id}@${read.sha}` };
    }
    for (const file of read.files) {
      const mismatch = await fileMismatch(pathInside(this.folder(sha), file.path), file);
      if (mismatch !== null) {
        return {
          state: "failed",
          why: `${file.path} ${mismatch}, so it changed since it was downloaded`,
        };
      }
    }
    return { state: "checked" };
  }

  /** Written last, after every file is in place and checked: its presence means "complete". */
  async finish(sha: string, files: ExpectedFile[]): Promise<void> {
    const path = join(this.folder(sha), MANIFEST);
    const manifest: Manifest = { id: this.id, sha, files };
    await replaceFile(path, `${JSON.stringify(manifest, null, 2)}\n`);
  }

  async setRef(revision: string, sha: string): Promise<void> {
    const path = this.#refPath(revision);
    await mkdir(join(this.root, "refs"), { recursive: true });
    await replaceFile(path, sha);
  }

  /** The sha `revision` resolved to when last online; null when never. */
  async ref(revision: string): Promise<string | null> {
    try {
      const sha = (await readFile(this.#refPath(revision), "utf8")).trim();
      return COMMIT_SHA.test(sha) ? sha : null;
    } catch {
      return null;
    }
  }

  /** One file name per revision: `refs/pr/1` is `refs%2Fpr%2F1`, and `..` is not the folder above. */
  #refPath(revision: string): string {
    const name = encodeURIComponent(revision).replace(/^\.\.?$/, (dots) =>
      "%2E".repeat(dots.length),
    );
    return join(this.root, "refs", name);
  }

  /** The manifest of `sha`; null when there is none, a string saying why when it is unusable. */
  async #manifest(sha: string): Promise<Manifest | string | null> {
    let text: string;
    try {
      text = await readFile(join(this.folder(sha), MANIFEST), "utf8");
    } catch {
      return null;
    }
    try {
      const parsed = ManifestSchema.safeParse(JSON.parse(text));
      return parsed.success
        ? parsed.data
        : `its ${MANIFEST} does not describe a download (${parsed.error.issues[0]?.path.join(".")})`;
    } catch (error) {
      return `its ${MANIFEST} is not JSON (${(error as Error).message})`;
    }
  }
}

/**
 * Writes `text` to a temporary file of this writer alone, then renames it over `path`. Two
 * processes (or two loads in one) finishing the same model each rename their own whole
 * file: with one shared temporary name, one could rename it away under the other.
 */
async function replaceFile(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}-${randomBytes(4).toString("hex")}.incomplete`;
  await writeFile(temporary, text);
  await rename(temporary, path);
}
