import { execFileSync } from "node:child_process";
import { mkdirSync, statfsSync } from "node:fs";

/**
 * A real small file system for disk-full tests: a tmpfs of `size` (e.g. "64k") mounted on
 * `dir`. Returns why it could not be mounted (not root, no mount permission), so a test can
 * skip with that reason instead of pretending the disk filled.
 */
export function mountTmpfs(dir: string, size: string): string | undefined {
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], {
      stdio: "pipe",
    });
    return undefined;
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return `cannot mount a tmpfs on ${dir}: ${stderr || (error as Error).message}`;
  }
}

/** Gives the tmpfs on `dir` a new size: how a test frees space under a running store. */
export function resizeTmpfs(dir: string, size: string): void {
  execFileSync("mount", ["-o", `remount,size=${size}`, dir], { stdio: "pipe" });
}

export function unmountTmpfs(dir: string): void {
  try {
    execFileSync("umount", ["-l", dir], { stdio: "pipe" });
  } catch {
    // Not mounted (the mount was refused): nothing to undo.
  }
}

/** Bytes free on the file system holding `dir`. */
export function freeBytes(dir: string): number {
  const info = statfsSync(dir);
  return info.bavail * info.bsize;
}
