import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

/** A temp folder removed after the test file; `write` puts a file in it. */
export function tempFiles(prefix = "assay-test-") {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return {
    dir,
    write(name: string, content: string | Buffer): string {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    },
  };
}

export function jsonl(lines: unknown[]): string {
  return `${lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line))).join("\n")}\n`;
}
