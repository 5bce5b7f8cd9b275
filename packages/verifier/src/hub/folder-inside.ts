import { lstat, mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";

/**
 * Makes the folders of `file` (a path `unsafeRepoPath` accepted) under `root`, one at a
 * time, refusing to go through a symbolic link or a file: `mkdir -p` would follow a link
 * left in the cache (`onnx -> /etc`) and the download would be written where it points.
 * `root` itself, and the folders above it, are the user's to place (a cache on another
 * disk, through a link, is fine). Returns null, or the path where a link or file stands.
 */
export async function foldersInside(root: string, file: string): Promise<string | null> {
  await mkdir(root, { recursive: true });
  let dir = root;
  for (const name of dirname(file).split("/")) {
    if (name === ".") break;
    dir = join(dir, name);
    if (!(await isFolder(dir))) return dir;
  }
  return null;
}

/** Whether `dir` is a real folder, made here when absent; false for a link or a file. */
async function isFolder(dir: string): Promise<boolean> {
  try {
    await mkdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const stats = await lstat(dir);
  return stats.isDirectory() && !stats.isSymbolicLink();
}
