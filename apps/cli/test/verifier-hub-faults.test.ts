import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeTinyModel } from "@assay/model-tools";
import { type HubRequest, LocalHub } from "@assay/test-support/local-hub";
import { runAssay } from "@assay/test-support/run-assay";
import { MODEL_FILES } from "@assay/verifier";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// `assay model check <hub id>` against a local Hub that misbehaves as the real one can:
// two processes filling one cache at once, the Hub going away half way, a gated model whose
// token is in the Hugging Face token file.
const work = mkdtempSync(join(tmpdir(), "assay-verifier-hub-faults-"));
let hub: LocalHub;
let model: string;

beforeAll(async () => {
  hub = await LocalHub.start();
  model = await makeTinyModel(join(work, "tiny"), { kind: "decoder" });
});
afterAll(async () => {
  await hub.close();
  rmSync(work, { recursive: true, force: true });
});

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** The env of a command using the local Hub, its own cache and no token of the machine's. */
function hubEnv(cache: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    HF_ENDPOINT: hub.url,
    ASSAY_MODEL_CACHE: join(work, cache),
    HF_TOKEN: undefined,
    HUGGING_FACE_HUB_TOKEN: undefined,
    HF_TOKEN_PATH: undefined,
    HF_HOME: join(work, "no-hf-home"),
    ...extra,
  };
}

function overlap(a: HubRequest, b: HubRequest): boolean {
  return a.startedAt < (b.endedAt ?? Infinity) && b.startedAt < (a.endedAt ?? Infinity);
}

describe("assay model check <hub id>", () => {
  it("run twice at once on one cache: both end with the model, whose files hash right", async () => {
    const sha = await hub.publish("acme/shared", model, [...MODEL_FILES]);
    // tokenizer.json (11 MB) takes seconds to send, so the two downloads overlap.
    hub.throttle = { chunkBytes: 256 * 1024, delayMs: 100 };
    const seen = hub.requests.length;
    try {
      const env = hubEnv("shared-cache");
      const [first, second] = await Promise.all([
        runAssay(["model", "check", "acme/shared", "--json"], { cwd: work, env }),
        runAssay(["model", "check", "acme/shared", "--json"], { cwd: work, env }),
      ]);
      expect(first.code, first.stderr).toBe(0);
      expect(second.code, second.stderr).toBe(0);
    } finally {
      hub.throttle = undefined;
    }
    // The fault hit: two whole downloads of tokenizer.json were in flight together.
    const bodies = hub.requests
      .slice(seen)
      .filter((r) => r.method === "GET" && r.path.endsWith("/tokenizer.json"));
    expect(bodies.length).toBeGreaterThanOrEqual(2);
    expect(bodies.some((a, i) => bodies.slice(i + 1).some((b) => overlap(a, b)))).toBe(true);
    const dir = join(work, "shared-cache", "acme--shared", sha);
    for (const file of MODEL_FILES) {
      expect(sha256(join(dir, file)), file).toBe(sha256(join(model, file)));
    }
    const left = readdirSync(dir, { recursive: true }).map(String);
    expect(left.filter((f) => f.includes("incomplete"))).toEqual([]);
    expect(left).toContain(".assay-hub.json");
  });

  it("with the Hub gone half way exits 5 naming the Hub and the file; the rerun finishes", async () => {
    const sha = await hub.publish("acme/away", model, [...MODEL_FILES]);
    const env = hubEnv("away-cache");
    hub.goneAt.add("onnx/model.onnx");
    const cut = await runAssay(["model", "check", "acme/away"], { cwd: work, env });
    await hub.reopen();
    expect(cut.code).toBe(5);
    expect(cut.stderr).toContain(`cannot reach the Hugging Face Hub at ${hub.url}`);
    expect(cut.stderr).toContain(`acme/away@${sha}/onnx/model.onnx`);
    const seen = hub.requests.length;
    const rerun = await runAssay(["model", "check", "acme/away"], { cwd: work, env });
    expect(rerun.code, rerun.stderr).toBe(0);
    const fetched = hub.requests
      .slice(seen)
      .filter((r) => r.path.includes("/resolve/"))
      .map((r) => r.path.split(`/resolve/${sha}/`)[1]);
    expect(new Set(fetched)).toEqual(new Set(["onnx/model.onnx"]));
  });

  it("of a gated model sends the token from HF_TOKEN_PATH, else $HF_HOME/token, trimmed", async () => {
    await hub.publish("acme/gated", model, [...MODEL_FILES]);
    const repo = hub.repos.get("acme/gated");
    if (repo !== undefined) repo.gatedToken = "hf_granted";
    const refused = await runAssay(["model", "check", "acme/gated"], {
      cwd: work,
      env: hubEnv("gated-none"),
    });
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain("Set HF_TOKEN");

    const tokenPath = join(work, "token-file");
    writeFileSync(tokenPath, "  hf_granted\n");
    const byPath = await runAssay(["model", "check", "acme/gated"], {
      cwd: work,
      env: hubEnv("gated-path", { HF_TOKEN_PATH: tokenPath }),
    });
    expect(byPath.code, byPath.stderr).toBe(0);

    const home = join(work, "hf-home");
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, "token"), "hf_granted\n");
    const byHome = await runAssay(["model", "check", "acme/gated"], {
      cwd: work,
      env: hubEnv("gated-home", { HF_HOME: home }),
    });
    expect(byHome.code, byHome.stderr).toBe(0);
    expect(
      hub.requests
        .filter((r) => r.path.includes("/acme/gated/resolve/"))
        .map((r) => r.authorization),
    ).toContain("Bearer hf_granted");
  });
});
