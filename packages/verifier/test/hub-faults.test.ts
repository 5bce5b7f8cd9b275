import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileSha256, LocalHub } from "@assay/test-support/local-hub";
import { sample, tempRoot, tinyModel } from "@assay/test-support/tiny-models";
import { freeBytes, mountTmpfs, resizeTmpfs, unmountTmpfs } from "@assay/test-support/tmpfs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HubError } from "../src/errors/hub-error.js";
import { HubCache } from "../src/hub/hub-cache.js";
import { MODEL_FILES, resolveModelSource } from "../src/index.js";
import { defineVerifierScorer } from "../src/scorers.js";

// Hub downloads meeting real faults: a full disk (a real tmpfs), the Hub going away half way
// (the local server closed), and concurrent finishes of one model's cache folder.
let hub: LocalHub;
let folder: string;
const disk = join(tempRoot, "small-disk");
// tokenizer.json alone is about 11 MB: a 2 MB disk fills during the download.
const notMounted = mountTmpfs(disk, "2m");

beforeAll(async () => {
  hub = await LocalHub.start();
  folder = await tinyModel();
});
afterAll(async () => {
  await hub.close();
  unmountTmpfs(disk);
  await rm(tempRoot, { recursive: true, force: true });
});

async function failure(promise: Promise<unknown>): Promise<HubError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HubError);
  return error as HubError;
}

/** Every file under `dir`, relative, sorted. */
async function listing(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

const SAMPLES = [
  sample("Is 2 + 2 = 4?", "yes"),
  sample("Name a prime.", "9"),
  sample("Capital of France?", "Paris"),
];

/** The scores of the model a hub id loads from `cacheDir`. */
async function scores(id: string, cacheDir: string): Promise<unknown[]> {
  const definition = defineVerifierScorer({ cacheDir, hubUrl: hub.url });
  const scorer = definition.create(definition.args.parse({ model: id }));
  try {
    const values: unknown[] = [];
    for (const s of SAMPLES) {
      const score = await scorer(s, {});
      values.push(score.status === "scored" ? score.value : score.status);
    }
    return values;
  } finally {
    await definition.close?.();
  }
}

describe("a hub download on a disk that fills", () => {
  it.skipIf(notMounted !== undefined)(
    `says the disk is full and where, keeps nothing untrusted, and completes once there is room${notMounted === undefined ? "" : ` (skipped: ${notMounted})`}`,
    async () => {
      const sha = await hub.publish("tiny/full-disk", folder, [...MODEL_FILES]);
      const error = await failure(
        resolveModelSource("tiny/full-disk", { cacheDir: disk, hubUrl: hub.url }),
      );
      expect(error.failure).toBe("disk");
      expect(error.message).toContain("the disk is full");
      expect(error.message).toContain(join(disk, "tiny--full-disk", sha, "tokenizer.json"));
      expect(error.message).toContain("ASSAY_MODEL_CACHE");
      // The fault hit: the disk was filled, then its space given back with the part.
      expect(freeBytes(disk)).toBeGreaterThan(1_500_000);
      const dir = join(disk, "tiny--full-disk", sha);
      const left = await listing(dir);
      expect(left.filter((f) => f.includes("incomplete") || f === ".assay-hub.json")).toEqual([]);
      for (const file of left) {
        expect(await fileSha256(join(dir, file)), file).toBe(await fileSha256(join(folder, file)));
      }
      // Nothing is loaded from the half-filled folder, with or without the network.
      await failure(resolveModelSource(`tiny/full-disk@${sha}`, { cacheDir: disk, offline: true }));

      resizeTmpfs(disk, "64m");
      const clean = await scores("tiny/full-disk", join(tempRoot, "roomy-cache"));
      expect(await scores("tiny/full-disk", disk)).toEqual(clean);
      expect(clean.every((v) => typeof v === "number")).toBe(true);
      for (const file of MODEL_FILES) {
        expect(await fileSha256(join(dir, file)), file).toBe(await fileSha256(join(folder, file)));
      }
    },
  );
});

describe("the Hub going away half way through a download", () => {
  it("names the Hub and the file, and the rerun fetches only what it had not kept", async () => {
    const away = await LocalHub.start();
    try {
      const sha = await away.publish("tiny/away", folder, [...MODEL_FILES]);
      const cacheDir = join(tempRoot, "away-cache");
      // The revision is resolved and the files listed; the ONNX graph comes last.
      away.goneAt.add("onnx/model.onnx");
      const error = await failure(resolveModelSource("tiny/away", { cacheDir, hubUrl: away.url }));
      expect(error.failure).toBe("network");
      expect(error.message).toContain(`cannot reach the Hugging Face Hub at ${away.url}`);
      expect(error.message).toContain(`tiny/away@${sha}/onnx/model.onnx`);
      const dir = join(cacheDir, "tiny--away", sha);
      const kept = await listing(dir);
      expect(kept).toContain("tokenizer.json");
      expect(kept).not.toContain("onnx/model.onnx");
      expect(kept).not.toContain(".assay-hub.json");

      await away.reopen();
      const seen = away.requests.length;
      const model = await resolveModelSource("tiny/away", { cacheDir, hubUrl: away.url });
      expect(model.revision).toBe(sha);
      const fetched = away.requests
        .slice(seen)
        .filter((r) => r.path.includes("/resolve/"))
        .map((r) => r.path.split(`/resolve/${sha}/`)[1]);
      expect(new Set(fetched)).toEqual(new Set(["onnx/model.onnx"]));
      for (const file of MODEL_FILES) {
        expect(await fileSha256(join(dir, file)), file).toBe(await fileSha256(join(folder, file)));
      }
    } finally {
      await away.close();
    }
  });
});

describe("a cache folder finished by many writers at once", () => {
  it("ends with a whole manifest and no temporary files", async () => {
    const cache = new HubCache(join(tempRoot, "finish-cache"), "tiny/many");
    const sha = "a".repeat(40);
    const files = [{ path: "config.json", size: 2, gitSha1: "b".repeat(40) }];
    await mkdir(cache.folder(sha), { recursive: true });
    await Promise.all(Array.from({ length: 20 }, () => cache.finish(sha, files)));
    await Promise.all(Array.from({ length: 20 }, () => cache.setRef("main", sha)));
    expect(await cache.ref("main")).toBe(sha);
    const manifest = JSON.parse(await readFile(join(cache.folder(sha), ".assay-hub.json"), "utf8"));
    expect(manifest).toEqual({ id: "tiny/many", sha, files });
    expect((await listing(cache.root)).filter((f) => f.includes("incomplete"))).toEqual([]);
  });
});
