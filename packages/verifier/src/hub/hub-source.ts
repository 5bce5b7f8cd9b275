/** A Hugging Face Hub model as a source names it: `owner/name` or `owner/name@revision`. */
export interface HubSource {
  /** `owner/name`. */
  id: string;
  /** A branch, tag or commit sha; `main` when the source names none. */
  revision: string;
  /** Whether the source named the revision (`@…`). */
  pinned: boolean;
}

const HUB_SOURCE = /^([\w.-]+\/[\w.-]+)(?:@([^\s@]+))?$/;

/** The hub id and revision a source names, or null when it is not a hub id. */
export function parseHubSource(source: string): HubSource | null {
  if (source.startsWith(".")) return null;
  const match = HUB_SOURCE.exec(source);
  if (match === null) return null;
  const [, id, revision] = match;
  return { id: id as string, revision: revision ?? "main", pinned: revision !== undefined };
}

/** A full commit sha: what a revision resolves to, and what needs no network to resolve. */
export const COMMIT_SHA = /^[0-9a-f]{40}$/;

/**
 * Why `owner/name` breaks the Hub's naming rules (huggingface_hub's `validate_repo_id`),
 * or null. They matter here too: `--` joins owner and name in the cache's folder name, so
 * `a--b/c` and `a/b--c` would share one, and a `..` name would be the folder above.
 */
export function hubIdProblem(id: string): string | null {
  if (id.includes("--") || id.includes("..")) return "a name may not hold `--` or `..`";
  if (id.split("/").some((part) => /^[.-]|[.-]$/.test(part))) {
    return "a name may not start or end with `-` or `.`";
  }
  return null;
}
