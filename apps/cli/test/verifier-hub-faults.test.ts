import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeTinyModel } from "@assay/model-tools";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { type HubRequest, LocalHub } from "@assay/test-support/local-hub";
import { runAssay } from "@assay/test-support/run-assay";
import { MODEL_FILES } from "@assay/verifier";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// `assay model check <hub id>` against a local Hub that misbehaves as the real one can:
// two processes filling one cache at once, the Hub going away half way, a gated model whose
// token is in the Hugging Face token file, a file list naming paths outside the model's
// folder, a Hub busy for longer than ASSAY_HUB_RETRY_WAIT, a mirror behind a password
// and a token the Hub no longer takes.
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
      // Two processes: commands in this one would take turns.
      const [first, second] = await Promise.all([
        runAssay(["model", "check", "acme/shared", "--json"], { cwd: work, env }),
        runAssay(["model", "check", "acme/shared", "--json"], { cwd: work, env }),
      ]);
      expect(first.code, first.stderr).toBe(ExitCode.ok);
      expect(second.code, second.stderr).toBe(ExitCode.ok);
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
    const cut = await assayInProcess(["model", "check", "acme/away"], { cwd: work, env });
    await hub.reopen();
    expect(cut.code).toBe(ExitCode.unavailable);
    expect(cut.stderr).toContain(`cannot reach the Hugging Face Hub at ${hub.url}`);
    expect(cut.stderr).toContain(`acme/away@${sha}/onnx/model.onnx`);
    const seen = hub.requests.length;
    const rerun = await assayInProcess(["model", "check", "acme/away"], { cwd: work, env });
    expect(rerun.code, rerun.stderr).toBe(ExitCode.ok);
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
    const refused = await assayInProcess(["model", "check", "acme/gated"], {
      cwd: work,
      env: hubEnv("gated-none"),
    });
    expect(refused.code).toBe(ExitCode.unavailable);
    expect(refused.stderr).toContain("Set HF_TOKEN");

    const tokenPath = join(work, "token-file");
    writeFileSync(tokenPath, "  hf_granted\n");
    const byPath = await assayInProcess(["model", "check", "acme/gated"], {
      cwd: work,
      env: hubEnv("gated-path", { HF_TOKEN_PATH: tokenPath }),
    });
    expect(byPath.code, byPath.stderr).toBe(ExitCode.ok);

    const home = join(work, "hf-home");
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, "token"), "hf_granted\n");
    const byHome = await assayInProcess(["model", "check", "acme/gated"], {
      cwd: work,
      env: hubEnv("gated-home", { HF_HOME: home }),
    });
    expect(byHome.code, byHome.stderr).toBe(ExitCode.ok);
    expect(
      hub.requests
        .filter((r) => r.path.includes("/acme/gated/resolve/"))
        .map((r) => r.authorization),
    ).toContain("Bearer hf_granted");
  });

  it("whose Hub lists ../ paths exits 5, and nothing is written outside the cache folder", async () => {
    await hub.publish("acme/hostile", model, [...MODEL_FILES]);
    const repo = hub.repos.get("acme/hostile");
    if (repo === undefined) throw new Error("not published");
    repo.rewriteListing = (entries) => [
      ...entries.map((e) => (e.path === "onnx/model.onnx" ? { ...e, path: "onnx/../../y" } : e)),
      { ...entries[0], path: "../../x" },
    ];
    const sandbox = join(work, "hostile-sandbox");
    mkdirSync(sandbox);
    const env = hubEnv("unused", { ASSAY_MODEL_CACHE: join(sandbox, "cache") });
    const refused = await assayInProcess(["model", "check", "acme/hostile"], { cwd: work, env });
    expect(refused.code).toBe(ExitCode.unavailable);
    expect(refused.stderr).toContain(
      "refused: entry 5 of the Hub's file list (paths-info) names the path `onnx/../../y`, which holds `..`",
    );
    expect(readdirSync(sandbox, { recursive: true })).toEqual([]);
  });

  it("of a Hub busy past ASSAY_HUB_RETRY_WAIT exits 5, saying how long it waited and what to do", async () => {
    await hub.publish("acme/busy", model, [...MODEL_FILES]);
    hub.busy.push({
      status: 503,
      retryAfter: "0",
      times: 1000,
      where: (r) => r.path.includes("acme/busy"),
    });
    const seen = hub.requests.length;
    try {
      const env = hubEnv("busy-cache", { ASSAY_HUB_RETRY_WAIT: "1" });
      const busy = await assayInProcess(["model", "check", "acme/busy"], { cwd: work, env });
      expect(busy.code).toBe(ExitCode.unavailable);
      const tries = hub.requests.slice(seen).length;
      expect(tries).toBeGreaterThan(1);
      expect(busy.stderr).toContain(`it answered 503 (service unavailable) to ${tries} tries`);
      expect(busy.stderr).toContain(
        "the most ASSAY_HUB_RETRY_WAIT (1 s) allows. Run the command again later, or set ASSAY_HUB_RETRY_WAIT higher",
      );
    } finally {
      hub.busy.length = 0;
    }
  });

  it("through a mirror behind a password in HF_ENDPOINT loads (its refusals: hub-requests.test.ts)", async () => {
    await hub.publish("acme/mirrored", model, [...MODEL_FILES]);
    hub.basicAuth = { user: "ci", password: "s3cret@mirror" };
    const seen = hub.requests.length;
    try {
      const endpoint = hub.url.replace("://", `://ci:${encodeURIComponent("s3cret@mirror")}@`);
      const env = hubEnv("mirror-cache", { HF_ENDPOINT: endpoint });
      const mirrored = await assayInProcess(["model", "check", "acme/mirrored"], {
        cwd: work,
        env,
      });
      expect(mirrored.code, mirrored.stderr).toBe(ExitCode.ok);
      expect(hub.requests.slice(seen).every((r) => r.authorization?.startsWith("Basic "))).toBe(
        true,
      );
    } finally {
      hub.basicAuth = undefined;
    }
  });

  it("with a token the Hub refuses exits 5, saying the token from HF_TOKEN was refused", async () => {
    await hub.publish("acme/open", model, [...MODEL_FILES]);
    hub.knownTokens = new Set(["hf_current"]);
    try {
      const env = hubEnv("revoked-cache", { HF_TOKEN: "hf_revoked" });
      const refused = await assayInProcess(["model", "check", "acme/open"], { cwd: work, env });
      expect(refused.code).toBe(ExitCode.unavailable);
      expect(refused.stderr).toContain(
        "answered 401: it refused the access token from HF_TOKEN (invalid, expired or revoked)",
      );
    } finally {
      hub.knownTokens = undefined;
    }
  });
});
