import { mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type HubRequest, LocalHub } from "@assay/test-support/local-hub";
import { tempRoot } from "@assay/test-support/tiny-models";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HubError } from "../src/errors/hub-error.js";
import { hubEndpoint } from "../src/hub/hub-endpoint.js";
import { retryAfterMs } from "../src/hub/hub-fetch.js";
import { type HubFiles, type HubOptions, resolveHubModel } from "../src/hub/resolve-hub-model.js";

// Issue 46.5: an unattended download rides out a busy Hub, reaches a mirror behind a
// password, and says which credentials were refused. A small repository keeps each load to
// five requests: model info, file list, and per file an info and a body request.
const FILES: HubFiles = { required: ["config.json", "onnx/model.onnx"], optional: [] };
const CONFIG = '{"model_type":"tiny"}\n';
let hub: LocalHub;
let repo: string;
let ids = 0;

beforeAll(async () => {
  hub = await LocalHub.start();
  repo = join(tempRoot, "requests-repo");
  await mkdir(join(repo, "onnx"), { recursive: true });
  await writeFile(join(repo, "config.json"), CONFIG);
  await writeFile(join(repo, "onnx", "model.onnx"), Buffer.alloc(4096, 3));
});
afterAll(() => hub.close());

/** A newly published repository and a cache of its own. */
async function fresh(): Promise<{ id: string; sha: string; cacheDir: string }> {
  ids += 1;
  const id = `tiny/requests-${ids}`;
  const sha = await hub.publish(id, repo, ["config.json", "onnx/model.onnx"]);
  return { id, sha, cacheDir: await mkdtemp(join(tempRoot, "requests-cache-")) };
}

function load(id: string, options: HubOptions) {
  return resolveHubModel({ id, revision: "main", pinned: false }, FILES, {
    hubUrl: hub.url,
    ...options,
  });
}

async function failure(promise: Promise<unknown>): Promise<HubError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HubError);
  return error as HubError;
}

/** A request for a file's bytes from the CDN (not the one-byte probe of its size and ETag). */
const body = (request: HubRequest) =>
  request.path.startsWith("/cdn/") && request.range === undefined;

/** The requests `hub` got since `seen` whose path holds `part`. */
function since(seen: number, part: string) {
  return hub.requests.slice(seen).filter((r) => r.path.includes(part));
}

describe("a busy Hub", () => {
  it("is asked again after the Retry-After it gives, and the load completes", async () => {
    const { id, sha, cacheDir } = await fresh();
    const seen = hub.requests.length;
    hub.busy.push({
      status: 503,
      retryAfter: "1",
      times: 1,
      where: (r) => r.path.includes("/revision/"),
    });
    // Twice on the ONNX file's bytes (an LFS file: the CDN's answer, after the redirect).
    hub.busy.push({ status: 429, retryAfter: "0", times: 2, where: body });
    const model = await load(id, { cacheDir, retryWaitSeconds: 3 });
    expect(model.sha).toBe(sha);
    const [busy, answered] = since(seen, "/revision/");
    // The fault hit, and the wait was the one asked for.
    expect(since(seen, "/revision/")).toHaveLength(2);
    expect((answered?.startedAt ?? 0) - (busy?.endedAt ?? Infinity)).toBeGreaterThanOrEqual(950);
    expect(since(seen, "/cdn/").filter((r) => r.range === undefined)).toHaveLength(3);
    expect(await readFile(join(model.dir, "config.json"), "utf8")).toBe(CONFIG);
    expect(hub.busy).toEqual([]);
  });

  it("that stays busy fails once the load's wait budget is spent, saying how many tries over how long", async () => {
    const { id, sha, cacheDir } = await fresh();
    const seen = hub.requests.length;
    hub.busy.push({ status: 429, times: 1000, where: (r) => r.path.includes("/paths-info/") });
    const started = Date.now();
    try {
      const error = await failure(load(id, { cacheDir, retryWaitSeconds: 0.6 }));
      const tries = since(seen, "/paths-info/").length;
      expect(tries).toBeGreaterThanOrEqual(3);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(error.failure).toBe("busy");
      expect(error.message).toContain(`${id}@${sha}`);
      expect(error.message).toContain(`it answered 429 (too many requests) to ${tries} tries`);
      expect(error.message).toMatch(
        /after 0\.\d s of waiting on it for this model, the most the retryWaitSeconds option \(0\.6 s\) allows/,
      );
      expect(error.message).toContain("Run the command again later");
      // Nothing was written: the file list never came.
      expect(await readdir(cacheDir)).toEqual([]);
    } finally {
      hub.busy.length = 0;
    }
  });

  it("whose Retry-After asks for more than the budget fails at once, saying what it asked", async () => {
    const { id, cacheDir } = await fresh();
    const seen = hub.requests.length;
    hub.busy.push({
      status: 503,
      retryAfter: "120",
      times: 1,
      where: (r) => r.path.includes("/revision/"),
    });
    const started = Date.now();
    const error = await failure(load(id, { cacheDir, retryWaitSeconds: 30 }));
    expect(since(seen, "/revision/")).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error.failure).toBe("busy");
    expect(error.message).toContain("answered 503 (service unavailable) to 1 try");
    expect(error.message).toContain(
      "its Retry-After asks for 120 s more, past the 30 s the retryWaitSeconds option allows",
    );
  });

  it("while a file's bytes stream says the Hub is busy, not that the download was cut", async () => {
    const { id, sha, cacheDir } = await fresh();
    hub.busy.push({ status: 503, times: 1000, where: body });
    const seen = hub.requests.length;
    try {
      const error = await failure(load(id, { cacheDir, retryWaitSeconds: 0.3 }));
      expect(since(seen, "/cdn/").filter((r) => r.range === undefined).length).toBeGreaterThan(1);
      expect(error.failure).toBe("busy");
      expect(error.message).toContain(`${id}@${sha}/onnx/model.onnx`);
      expect(error.message).not.toContain("cut");
    } finally {
      hub.busy.length = 0;
    }
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs("7", now)).toBe(7000);
    expect(retryAfterMs(" 0 ", now)).toBe(0);
    expect(retryAfterMs(new Date(now + 90_000).toUTCString(), now)).toBe(90_000);
    expect(retryAfterMs(new Date(now - 5000).toUTCString(), now)).toBe(0);
    expect(retryAfterMs("soon", now)).toBeNull();
    expect(retryAfterMs(null, now)).toBeNull();
  });
});

describe("a mirror behind a password (HF_ENDPOINT=https://user:password@host)", () => {
  const password = "p@ss:w/rd%";
  const withCredentials = (pass: string) =>
    hub.url.replace("://", `://mirror-user:${encodeURIComponent(pass)}@`);

  it("gets the credentials as HTTP Basic auth on every request, and no token", async () => {
    const { id, sha, cacheDir } = await fresh();
    hub.basicAuth = { user: "mirror-user", password };
    const seen = hub.requests.length;
    try {
      const model = await load(id, {
        cacheDir,
        hubUrl: withCredentials(password),
        accessToken: "hf_for_huggingface_co",
      });
      expect(model.sha).toBe(sha);
      const basic = `Basic ${Buffer.from(`mirror-user:${password}`).toString("base64")}`;
      const sent = hub.requests.slice(seen).map((r) => r.authorization);
      expect(sent.length).toBeGreaterThanOrEqual(5);
      expect(new Set(sent)).toEqual(new Set([basic]));
    } finally {
      hub.basicAuth = undefined;
    }
  });

  it("that refuses them says so, and never shows the password", async () => {
    const { id, cacheDir } = await fresh();
    hub.basicAuth = { user: "mirror-user", password };
    try {
      const error = await failure(load(id, { cacheDir, hubUrl: withCredentials("wrong-pass") }));
      expect(error.failure).toBe("access");
      expect(error.message).toContain(
        `the Hub at ${hub.url} answered 401: it refused the user name and password in HF_ENDPOINT`,
      );
      expect(error.message).not.toContain("wrong-pass");
      expect(error.message).not.toContain("mirror-user");
    } finally {
      hub.basicAuth = undefined;
    }
  });
});

describe("the endpoint's address", () => {
  it("loses its credentials to a Basic header; a malformed escape or another scheme is refused, naming the variable", () => {
    const endpoint = hubEndpoint("https://ci:p%40ss@mirror.example:8443/hf/", "HF_ENDPOINT");
    expect(endpoint).toEqual({
      url: "https://mirror.example:8443/hf",
      origin: "https://mirror.example:8443",
      basicAuth: `Basic ${Buffer.from("ci:p@ss").toString("base64")}`,
    });
    expect(hubEndpoint("https://huggingface.co", "HF_ENDPOINT")).toEqual({
      url: "https://huggingface.co",
      origin: "https://huggingface.co",
    });
    expect(() => hubEndpoint("https://ci:100%@mirror.example", "HF_ENDPOINT")).toThrow(
      /^HF_ENDPOINT: holds a user name or password with a malformed percent escape; write `%` in it as %25/,
    );
    expect(() => hubEndpoint("ftp://mirror.example", "HF_ENDPOINT")).toThrow(
      "HF_ENDPOINT: is a ftp: URL; the Hub is reached over https (or http)",
    );
  });
});

describe("an access token the Hub does not take", () => {
  it("is said to be refused, naming where it came from: the option, HF_TOKEN or the token file", async () => {
    const { id, cacheDir } = await fresh();
    const tokenPath = join(cacheDir, "token");
    await writeFile(tokenPath, "hf_revoked\n");
    const names = ["HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_TOKEN_PATH"] as const;
    const saved = names.map((name) => [name, process.env[name]] as const);
    hub.knownTokens = new Set(["hf_current"]);
    try {
      const byOption = await failure(load(id, { cacheDir, accessToken: "hf_revoked" }));
      expect(byOption.failure).toBe("access");
      expect(byOption.message).toContain(
        "the Hub answered 401: it refused the access token from the accessToken option (invalid, expired or revoked)",
      );
      expect(byOption.message).not.toContain("Set HF_TOKEN");
      process.env.HF_TOKEN = "hf_revoked";
      const byEnv = await failure(load(id, { cacheDir }));
      expect(byEnv.message).toContain("it refused the access token from HF_TOKEN");
      delete process.env.HF_TOKEN;
      delete process.env.HUGGING_FACE_HUB_TOKEN;
      process.env.HF_TOKEN_PATH = tokenPath;
      const byFile = await failure(load(id, { cacheDir }));
      expect(byFile.message).toContain(
        `it refused the access token from the token file ${tokenPath}`,
      );
      expect((await load(id, { cacheDir, accessToken: "hf_current" })).dir).toContain(cacheDir);
    } finally {
      hub.knownTokens = undefined;
      for (const [name, value] of saved) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});
