import { readFileSync } from "node:fs";
import { REPO_ROOT } from "@assay/test-support/run-assay";

/**
 * The first fenced block after `anchor` (a phrase of the text before it) in `file`, a
 * Markdown page of the repository (README.md unless named, e.g. "docs/cli.md"): its lines.
 */
export function readmeBlock(anchor: string, file = "README.md"): string[] {
  const text = readFileSync(`${REPO_ROOT}${file}`, "utf8");
  const at = text.indexOf(anchor);
  if (at === -1) throw new Error(`${file} no longer says "${anchor}"`);
  const open = text.indexOf("```\n", at) + 4;
  const close = text.indexOf("\n```", open);
  return text.slice(open, close).split("\n");
}
