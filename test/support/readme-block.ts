import { readFileSync } from "node:fs";
import { REPO_ROOT } from "@assay/test-support/run-assay";

/** The README's first fenced block after `anchor` (a phrase of the text before it), its lines. */
export function readmeBlock(anchor: string): string[] {
  const readme = readFileSync(`${REPO_ROOT}README.md`, "utf8");
  const at = readme.indexOf(anchor);
  if (at === -1) throw new Error(`README.md no longer says "${anchor}"`);
  const open = readme.indexOf("```\n", at) + 4;
  const close = readme.indexOf("\n```", open);
  return readme.slice(open, close).split("\n");
}
