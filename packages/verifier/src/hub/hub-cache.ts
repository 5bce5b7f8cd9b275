import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { type ExpectedFile, fileMatches } from "./file-hash.js";

/** The record a finished download leaves in its folder: which commit, which bytes. */
const MANIFEST = ".assay-hub.json";

const ManifestSchema = z.object({
  id: z.string(),
  sha: z.string(),
  files: z.array(
    z.object({
      path: z.string(),
      size: z.number(),
      sha256: z.string().optional(),
      gitSha1: z.string().optional(),
    }),
  ),
});
type Manifest = z.infer<typeof ManifestSchema>;

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

  folder(sha: string): string {
    return join(this.root, sha);
  }

  /**
   * Whether the folder of `sha` holds a finished download whose every file still hashes to
   * what the Hub listed. Only then is it used without the network.
   */
  async verified(sha: string): Promise<boolean> {
    const manifest = await this.#manifest(sha);
    if (manifest === null || manifest.sha !== sha || manifest.id !== this.id) return false;
    for (const file of manifest.files) {
      if (!(await fileMatches(join(this.folder(sha), file.path), file as ExpectedFile))) {
        return false;
      }
    }
    return true;
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
      return /^[0-9a-f]{40}$/.test(sha) ? sha : null;
    } catch {
      return null;
    }
  }

  #refPath(revision: string): string {
    return join(this.root, "refs", encodeURIComponent(revision));
  }

  async #manifest(sha: string): Promise<Manifest | null> {
    try {
      const text = await readFile(join(this.folder(sha), MANIFEST), "utf8");
      const parsed = ManifestSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
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
