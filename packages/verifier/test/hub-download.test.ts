import { readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileSha256, LocalHub } from "@assay/test-support/local-hub";
import { sample, tempRoot, tinyModel } from "@assay/test-support/tiny-models";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HubError } from "../src/errors/hub-error.js";
import { loadModel, MODEL_FILES, resolveModelSource } from "../src/index.js";

const FILES = [...MODEL_FILES, "onnx/model.onnx_data"];
let hub: LocalHub;
let folder: string;
let cacheCount = 0;

beforeAll(async () => {
  hub = await LocalHub.start();
  folder = await tinyModel();
});
afterAll(() => hub.close());

/** A cache folder no other test has filled. */
function freshCache(): string {
  cacheCount += 1;
  return join(tempRoot, `hub-cache-${cacheCount}`);
}

async function failure(promise: Promise<unknown>): Promise<HubError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HubError);
  return error as HubError;
}

async function listing(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).sort();
}

describe("a verifier named by hub id", () => {
  it("downloads at the commit main resolves to, scores like the folder, and records the sha", async () => {
    const sha = await hub.publish("tiny/probe", folder, FILES);
    const cacheDir = freshCache();
    const model = await loadModel("tiny/probe", { cacheDir, hubUrl: hub.url });
    try {
      expect(model.revision).toBe(sha);
      expect(model.dir).toBe(join(cacheDir, "tiny--probe", sha));
      for (const file of MODEL_FILES) {
        expect(await fileSha256(join(model.dir, file))).toBe(await fileSha256(join(folder, file)));
      }
    } finally {
      await model.close();
    }
  });

  it("is reused from the cache without the network, and only while its files hash right", async () => {
    const offline = await LocalHub.start();
    const sha = await offline.publish("tiny/offline", folder, FILES);
    const cacheDir = freshCache();
    const hubUrl = offline.url;
    await resolveModelSource("tiny/offline", { cacheDir, hubUrl });
    await offline.close();
    for (const source of ["tiny/offline", `tiny/offline@${sha}`]) {
      const again = await resolveModelSource(source, { cacheDir, hubUrl });
      expect(again).toEqual({ dir: join(cacheDir, "tiny--offline", sha), revision: sha });
    }
    // HF_HUB_OFFLINE: not even a request (the address would refuse it anyway).
    const pinned = await resolveModelSource("tiny/offline", { cacheDir, offline: true });
    expect(pinned.revision).toBe(sha);
    const onnx = join(cacheDir, "tiny--offline", sha, "onnx", "model.onnx");
    const bytes = await readFile(onnx);
    bytes[100] = (bytes[100] ?? 0) ^ 1;
    await writeFile(onnx, bytes);
    const error = await failure(resolveModelSource("tiny/offline", { cacheDir, hubUrl }));
    expect(error.failure).toBe("network");
    expect(error.message).toContain("cannot reach the Hugging Face Hub");
    const changed = `the cached copy of ${sha} in ${join(cacheDir, "tiny--offline", sha)} fails its check: onnx/model.onnx has sha256`;
    expect(error.message).toContain(changed);
    // Offline, the file that fails its hash is named rather than "no checked copy".
    const offlineError = await failure(
      resolveModelSource("tiny/offline", { cacheDir, offline: true }),
    );
    expect(offlineError.failure).toBe("integrity");
    expect(offlineError.message).toContain(`HF_HUB_OFFLINE is set; ${changed}`);
    expect(offlineError.message).toMatch(
      /where the Hub lists [0-9a-f]{64}, so it changed since it was downloaded; unset HF_HUB_OFFLINE/,
    );
    expect(offlineError.message).not.toContain("no checked copy");
  });

  it("pins @revision: a tag keeps its commit while main moves on", async () => {
    const first = await hub.publish("tiny/moving", folder, FILES, ["main", "v1"]);
    const other = await tinyModel({ seed: 7 });
    const second = await hub.publish("tiny/moving", other, FILES, ["main"]);
    const cacheDir = freshCache();
    const tagged = await resolveModelSource("tiny/moving@v1", { cacheDir, hubUrl: hub.url });
    const latest = await resolveModelSource("tiny/moving", { cacheDir, hubUrl: hub.url });
    expect(tagged.revision).toBe(first);
    expect(latest.revision).toBe(second);
    expect(tagged.dir).not.toBe(latest.dir);
    expect(await fileSha256(join(latest.dir, "onnx/model.onnx"))).toBe(
      await fileSha256(join(other, "onnx/model.onnx")),
    );
    const unknown = await failure(
      resolveModelSource("tiny/moving@v9", { cacheDir, hubUrl: hub.url }),
    );
    expect(unknown.failure).toBe("not-found");
    expect(unknown.message).toContain("tiny/moving@v9");
    expect(unknown.message).toContain("404");
  });

  it("names the file a repository lacks", async () => {
    await hub.publish(
      "tiny/no-assay",
      folder,
      FILES.filter((f) => f !== "assay.json"),
    );
    const error = await failure(
      resolveModelSource("tiny/no-assay", { cacheDir: freshCache(), hubUrl: hub.url }),
    );
    expect(error.message).toContain("has no assay.json at this revision");
  });
});

describe("a download that goes wrong", () => {
  it("cut half way through the ONNX file leaves nothing trusted, and a rerun resumes the killed process's part", async () => {
    const sha = await hub.publish("tiny/cut", folder, FILES);
    const cacheDir = freshCache();
    hub.cutOnce.add("onnx/model.onnx");
    const error = await failure(resolveModelSource("tiny/cut", { cacheDir, hubUrl: hub.url }));
    expect(error.failure).toBe("network");
    expect(error.message).toContain("tiny/cut@");
    expect(error.message).toContain("onnx/model.onnx");
    expect(error.message).toMatch(/cut after \d+ of \d+ bytes/);
    const dir = join(cacheDir, "tiny--cut", sha);
    const left = await listing(dir);
    expect(left).not.toContain("onnx/model.onnx");
    expect(left).not.toContain(".assay-hub.json");
    expect(left).toContain(`onnx/model.onnx.${process.pid}.incomplete`);
    // An offline load does not take the folder for a model.
    await failure(resolveModelSource(`tiny/cut@${sha}`, { cacheDir, offline: true }));
    // As if the process had been killed: its part is named by a pid no process has.
    const deadPid = 4_194_301;
    expect(() => process.kill(deadPid, 0)).toThrow();
    await rename(
      join(dir, `onnx/model.onnx.${process.pid}.incomplete`),
      join(dir, `onnx/model.onnx.${deadPid}.incomplete`),
    );

    const seen = hub.requests.length;
    const rerun = await resolveModelSource("tiny/cut", { cacheDir, hubUrl: hub.url });
    expect(rerun.revision).toBe(sha);
    expect(await fileSha256(join(dir, "onnx/model.onnx"))).toBe(
      await fileSha256(join(folder, "onnx/model.onnx")),
    );
    const resumed = hub.requests.slice(seen).filter((r) => r.path.startsWith("/cdn/"));
    expect(resumed.some((r) => /^bytes=[1-9]\d*-\d+$/.test(r.range ?? ""))).toBe(true);
    expect((await listing(dir)).filter((f) => f.endsWith(".incomplete"))).toEqual([]);
  });

  it("refuses bytes that do not match their hash, and keeps none of them", async () => {
    const sha = await hub.publish("tiny/tampered", folder, FILES);
    const cacheDir = freshCache();
    hub.tampered.add("onnx/model.onnx");
    try {
      const error = await failure(
        resolveModelSource("tiny/tampered", { cacheDir, hubUrl: hub.url }),
      );
      expect(error.failure).toBe("integrity");
      expect(error.message).toContain("onnx/model.onnx");
      expect(error.message).toMatch(
        /refused: the downloaded file has sha256 [0-9a-f]{64} where the Hub lists [0-9a-f]{64}/,
      );
      const left = await listing(join(cacheDir, "tiny--tampered", sha));
      expect(left.filter((f) => f.startsWith("onnx/model.onnx"))).toEqual([]);
      expect(left).not.toContain(".assay-hub.json");
    } finally {
      hub.tampered.delete("onnx/model.onnx");
    }
  });

  it("of a gated model without a token says to set HF_TOKEN; with the token it loads", async () => {
    const sha = await hub.publish("tiny/gated", folder, FILES);
    const repo = hub.repos.get("tiny/gated");
    if (repo !== undefined) repo.gatedToken = "hf_accepted";
    const cacheDir = freshCache();
    const missing = await failure(resolveModelSource("tiny/gated", { cacheDir, hubUrl: hub.url }));
    expect(missing.failure).toBe("access");
    expect(missing.message).toContain("401");
    expect(missing.message).toContain("Set HF_TOKEN");
    expect(missing.message).toContain(`${hub.url}/tiny/gated`);
    const wrong = await failure(
      resolveModelSource("tiny/gated", { cacheDir, hubUrl: hub.url, accessToken: "hf_other" }),
    );
    expect(wrong.message).toContain("403");
    expect(wrong.message).toContain("accepted the model's licence");
    const granted = await resolveModelSource("tiny/gated", {
      cacheDir,
      hubUrl: hub.url,
      accessToken: "hf_accepted",
    });
    expect(granted.revision).toBe(sha);
    expect((await stat(join(granted.dir, "onnx/model.onnx"))).size).toBeGreaterThan(0);
  });
});

describe("a verifier score of a hub model", () => {
  it("carries the commit sha it was scored at", async () => {
    const sha = await hub.publish("tiny/scoring", folder, FILES);
    const { defineVerifierScorer } = await import("../src/scorers.js");
    const definition = defineVerifierScorer({ cacheDir: freshCache(), hubUrl: hub.url });
    const scorer = definition.create(definition.args.parse({ model: "tiny/scoring" }));
    try {
      const score = await scorer(sample("Is 2 + 2 = 4?", "yes"), {});
      expect(score.detail?.revision).toBe(sha);
    } finally {
      await definition.close?.();
    }
  });
});

afterAll(() => rm(join(tempRoot), { recursive: true, force: true }));
