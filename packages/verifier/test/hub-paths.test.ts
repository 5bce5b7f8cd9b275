import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { isAbsolute, join, relative, resolve } from "node:path";
import { type ListedEntry, LocalHub } from "@assay/test-support/local-hub";
import { propertyRuns } from "@assay/test-support/property-runs";
import { tempRoot } from "@assay/test-support/tiny-models";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HubError } from "../src/errors/hub-error.js";
import { HubCache } from "../src/hub/hub-cache.js";
import { unsafeRepoPath } from "../src/hub/repo-path.js";
import { type HubFiles, resolveHubModel } from "../src/hub/resolve-hub-model.js";

// Issue 46.1: whatever file list a Hub (or a mirror, or a proxy) sends, no file is written
// outside the model's cache folder. A small repository keeps each try to two requests.
const RUNS = propertyRuns(25);
const ID = "tiny/paths";
const FILES: HubFiles = { required: ["config.json", "onnx/model.onnx"], optional: [] };
let hub: LocalHub;
let sha: string;

beforeAll(async () => {
  hub = await LocalHub.start();
  const repo = join(tempRoot, "paths-repo");
  await mkdir(join(repo, "onnx"), { recursive: true });
  await writeFile(join(repo, "config.json"), '{"model_type":"tiny"}\n');
  await writeFile(join(repo, "onnx", "model.onnx"), Buffer.alloc(4096, 7));
  sha = await hub.publish(ID, repo, ["config.json", "onnx/model.onnx"]);
});
afterAll(() => hub.close());

/** Where one try runs: the cache is a folder of the sandbox, which is listed afterwards. */
interface Sandbox {
  root: string;
  cache: string;
  /** The folder the commit's files belong in. */
  revision: string;
}

async function sandbox(): Promise<Sandbox> {
  const root = await mkdtemp(join(tempRoot, "sandbox-"));
  const cache = join(root, "cache");
  return { root, cache, revision: join(cache, "tiny--paths", sha) };
}

/** Every entry (files, folders, links) under `dir`, relative, sorted. */
async function everything(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.map((e) => relative(dir, join(e.parentPath, e.name))).sort();
}

/** A hostile name is made for the sandbox it runs in, so that any escape lands inside it. */
type MakeName = (box: Sandbox) => unknown;

const segment = fc.stringMatching(/^[a-z0-9_]{1,6}$/);
/** `..` repeated `ups` times from the revision folder, then back down to a file of the sandbox. */
const climbOut = (ups: number, prefix: string[] = []): MakeName => {
  return (box) => {
    const from = join(box.revision, ...prefix);
    const landing = resolve(from, ...Array<string>(ups + prefix.length).fill(".."));
    const back = relative(landing, join(box.root, "escaped", "file"));
    return [...prefix, ...Array<string>(ups + prefix.length).fill(".."), back].join("/");
  };
};

const hostile: fc.Arbitrary<{ kind: string; make: MakeName }> = fc.oneof(
  fc.integer({ min: 1, max: 40 }).map((ups) => ({ kind: "../", make: climbOut(ups) })),
  fc
    .tuple(fc.array(segment, { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 12 }))
    .map(([prefix, ups]) => ({ kind: "a/../..", make: climbOut(ups, prefix) })),
  fc.constant({ kind: "deep", make: climbOut(300) }),
  segment.map((s) => ({ kind: "absolute", make: (box: Sandbox) => join(box.root, "abs", s) })),
  fc
    .tuple(fc.constantFrom("C:", "c:", "Z:"), fc.constantFrom("\\", "/", ""), segment)
    .map(([drive, slash, s]) => ({ kind: "drive", make: () => `${drive}${slash}${s}` })),
  fc
    .tuple(segment, fc.constantFrom("\\..\\", "\\", "\\.\\"), segment)
    .map(([a, mid, b]) => ({ kind: "backslash", make: () => `${a}${mid}${b}` })),
  fc
    .tuple(segment, fc.constantFrom("\0", "\n", "\r", "\u001b", "\u007f"), segment)
    .map(([a, c, b]) => ({ kind: "control", make: () => `${a}${c}${b}` })),
  fc
    .tuple(
      fc.constantFrom("%2e%2e", "%2E%2e", ".%2e", "%2e.", "a%2f%2e%2e"),
      fc.integer({ min: 1, max: 6 }),
    )
    .map(([dots, ups]) => ({ kind: "percent", make: () => `${`${dots}/`.repeat(ups)}x` })),
  fc
    .tuple(segment, fc.constantFrom(["//", "x"], ["/./", "x"], ["/", ""], ["/.", ""]))
    .map(([a, [mid, b]]) => ({ kind: "non-canonical", make: () => `${a}${mid}${b}` })),
  fc.constantFrom<unknown>(42, "", null, "./config.json", "x".repeat(1100)).map((value) => ({
    kind: "odd",
    make: () => value,
  })),
);

/** Names that only look like escapes: ordinary characters on Linux and macOS file systems. */
const harmless = fc
  .array(
    fc.oneof(
      segment,
      fc.constantFrom("．．", "‥", "․․", "．／", "∕", "…", "a%20b", "x.y", "~", "%", "ä"),
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((parts) => parts.join("/"));

/** How an entry is slipped into the true list: added, or in place of a true entry's path. */
const entry = fc.oneof(
  fc.record({ name: hostile, mode: fc.constantFrom("extra", "instead") }),
  fc.record({
    name: harmless.map((name) => ({ kind: "harmless", make: () => name })),
    mode: fc.constant("extra"),
  }),
);

describe("a Hub whose file list names paths outside the model's folder", () => {
  it("is refused before any byte is written, and nothing appears outside the cache folder", async () => {
    const repo = hub.repos.get(ID);
    if (repo === undefined) throw new Error("the repository is not published");
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 4 }), async (slipped) => {
          const box = await sandbox();
          const names = slipped.map((s) => s.name.make(box));
          const list = (entries: ListedEntry[]): unknown[] => {
            const out: Record<string, unknown>[] = entries.map((e) => ({ ...e }));
            slipped.forEach((s, i) => {
              const listed = { type: "file", path: names[i], oid: "0".repeat(40), size: 3 };
              const target = out[i % out.length];
              if (s.mode === "instead" && target !== undefined) target.path = names[i];
              else out.push(listed);
            });
            return out;
          };
          repo.rewriteListing = list;
          const served = list([
            { type: "file", path: "config.json", oid: "", size: 0 },
            { type: "file", path: "onnx/model.onnx", oid: "", size: 0 },
          ]).map((e) => (e as { path: unknown }).path);
          const firstHostile = served.findIndex((path) => unsafeRepoPath(path) !== null);
          const anyHostile = slipped.some((s) => s.name.kind !== "harmless");

          const outcome = await resolveHubModel(
            { id: ID, revision: "main", pinned: false },
            FILES,
            {
              cacheDir: box.cache,
              hubUrl: hub.url,
            },
          ).then(
            () => null,
            (error: unknown) => error,
          );
          const left = await everything(box.root);
          if (anyHostile) {
            // By construction a hostile entry is one the rule refuses (else the generator is wrong).
            expect(firstHostile).toBeGreaterThanOrEqual(0);
            expect(outcome).toBeInstanceOf(HubError);
            expect((outcome as HubError).failure).toBe("unsafe-path");
            expect((outcome as HubError).message).toContain(
              `entry ${firstHostile + 1} of the Hub's file list`,
            );
            // Nothing written at all: no folder of the commit, no ref, no manifest.
            expect(left).toEqual([]);
          } else {
            expect(outcome).toBeNull();
            const inCache = [
              "cache",
              "cache/tiny--paths",
              "cache/tiny--paths/refs",
              "cache/tiny--paths/refs/main",
            ];
            const revision = relative(box.root, box.revision);
            const files = [".assay-hub.json", "config.json", "onnx", "onnx/model.onnx"].map((f) =>
              join(revision, f),
            );
            expect(left).toEqual([...inCache, revision, ...files].sort());
          }
        }),
        { numRuns: RUNS },
      );
    } finally {
      delete repo.rewriteListing;
    }
  });

  it("through the real path rule: any name it accepts resolves inside the folder, raw and percent-decoded", () => {
    const root = resolve(tempRoot, "root");
    const piece = fc.constantFrom(
      "a",
      "b.c",
      ".",
      "..",
      "/",
      "\\",
      "%2e",
      "%2E",
      "%2f",
      "%5c",
      "%",
      "\0",
      "C:",
      "．",
      " ",
      "~",
    );
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 8 }), (pieces) => {
        const path = pieces.join("");
        if (unsafeRepoPath(path) !== null) return;
        for (const form of [path, safeDecode(path)]) {
          const inside = relative(root, resolve(root, form));
          expect(inside === "" || inside.startsWith("..") || isAbsolute(inside), form).toBe(false);
          expect(form.includes("\\") || form.includes("\0")).toBe(false);
        }
      }),
      { numRuns: RUNS * 80 },
    );
  });
});

describe("a cache folder that is not what the download left", () => {
  it("whose manifest names a path outside it is not trusted, even when that file hashes right", async () => {
    const box = await sandbox();
    const cache = new HubCache(box.cache, ID);
    await mkdir(cache.folder(sha), { recursive: true });
    const secret = join(box.root, "secret");
    await writeFile(secret, "x");
    const outside = relative(cache.folder(sha), secret);
    const gitSha1 = createHash("sha1").update("blob 1\0x").digest("hex");
    await cache.finish(sha, [{ path: outside, size: 1, gitSha1 }]);
    const copy = await cache.check(sha);
    expect(copy.state).toBe("failed");
    const error = await resolveHubModel({ id: ID, revision: sha, pinned: true }, FILES, {
      cacheDir: box.cache,
      offline: true,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HubError);
    expect((error as HubError).message).toContain("does not describe a download (files.0.path)");
  });

  it("with a link where a folder of the model belongs is refused, and nothing is written through it", async () => {
    const box = await sandbox();
    const elsewhere = join(box.root, "elsewhere");
    await mkdir(elsewhere);
    await mkdir(box.revision, { recursive: true });
    await symlink(elsewhere, join(box.revision, "onnx"));
    const error = await resolveHubModel({ id: ID, revision: "main", pinned: false }, FILES, {
      cacheDir: box.cache,
      hubUrl: hub.url,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HubError);
    expect((error as HubError).failure).toBe("unsafe-path");
    expect((error as HubError).message).toContain(
      `symbolic link (or a file) at ${join(box.revision, "onnx")}`,
    );
    // The fault hit: the files before the link were downloaded; none went through it.
    expect(await readFile(join(box.revision, "config.json"), "utf8")).toContain("tiny");
    expect(await readdir(elsewhere)).toEqual([]);
    expect(await everything(box.revision)).not.toContain(".assay-hub.json");
  });
});

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
