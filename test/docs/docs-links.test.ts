import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { REPO_ROOT } from "@assay/test-support/run-assay";
import { describe, expect, it } from "vitest";

// The pages a newcomer reads name only files that exist, link only to headings that exist,
// and the README keeps the two commands CI (.ci/run) and users copy from it.

const read = (file: string) => readFileSync(join(REPO_ROOT, file), "utf8");

/** Every Markdown page of the repository but dependencies and build output. */
function markdownPages(dir = ""): string[] {
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      const skip = ["node_modules", "dist", ".git", ".turbo", ".assay", ".assay-example"];
      return skip.includes(entry.name) || entry.name.startsWith(".tmp") ? [] : markdownPages(path);
    }
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

/** The page's text outside fenced blocks. */
const prose = (text: string) => text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, "");

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, "")
    .replaceAll(" ", "-");

const anchorsOf = (text: string) =>
  new Set([...prose(text).matchAll(/^#+ (.+)$/gm)].map((m) => anchorOf(m[1] ?? "")));

describe("links in the repository's Markdown pages", () => {
  it("name files that exist and headings those files have", () => {
    const broken: string[] = [];
    for (const page of markdownPages()) {
      for (const [, target = ""] of prose(read(page)).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:)/.test(target)) continue;
        const [path = "", anchor] = target.split("#");
        const file = path === "" ? page : relative(REPO_ROOT, join(REPO_ROOT, dirname(page), path));
        if (!existsSync(join(REPO_ROOT, file))) broken.push(`${page}: ${target} (no such file)`);
        else if (anchor !== undefined && file.endsWith(".md") && !anchorsOf(read(file)).has(anchor))
          broken.push(`${page}: ${target} (no such heading in ${file})`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe("the README", () => {
  const readme = read("README.md");

  it("keeps the setup command and the test command CI runs", () => {
    expect(readme).toContain("\nONNXRUNTIME_NODE_INSTALL=skip npm ci && npm run example\n");
    expect(readme).toContain("\nnpm test\n");
    expect(read(".ci/run")).toMatch(/^npm test\b/m);
  });

  it("points to every page in docs/", () => {
    const pages = readdirSync(join(REPO_ROOT, "docs")).filter((name) => name.endsWith(".md"));
    const unlinked = pages.filter((name) => !readme.includes(`](docs/${name}`));
    expect(unlinked).toEqual([]);
  });
});

describe('docs/architecture.md, "Where a line becomes a stored score"', () => {
  const text = read("docs/architecture.md");
  const start = text.indexOf("## Where a line becomes a stored score");
  const section = text.slice(start, text.indexOf("\n## ", start + 1));

  it("covers both shapes", () => {
    expect(start).toBeGreaterThan(-1);
    expect(section).toContain("**Embedded**");
    expect(section).toContain("**Distributed**");
  });

  it("names files that exist and functions or classes those files define", () => {
    const steps = [...section.matchAll(/`([\w./-]+\.ts):(\w+)(?:\.(\w+))?`/g)];
    expect(steps.length).toBeGreaterThan(10);
    const wrong = steps.flatMap(([step, file = "", name = "", member]) => {
      if (!existsSync(join(REPO_ROOT, file))) return [`${step}: no such file`];
      const source = read(file);
      const defines = new RegExp(`(function\\*?|class|const) ${name}\\b`).test(source);
      const hasMember = member === undefined || new RegExp(`\\b${member}\\(`).test(source);
      return defines && hasMember ? [] : [`${step}: ${file} defines no such name`];
    });
    expect(wrong).toEqual([]);
  });
});
