import { execFileSync, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Dockerfile, DockerfileParser } from "dockerfile-ast";
import { validate } from "dockerfile-utils";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DOCKERFILES } from "./support/invocations.js";
import { INFRA, ROOT } from "./support/paths.js";

// A CommonJS module whose typings declare an ES default export; require it as it is.
const dockerignore = createRequire(import.meta.url)(
  "@balena/dockerignore",
) as typeof import("@balena/dockerignore").default;

const read = (file: string) => readFileSync(join(INFRA, file), "utf8");
const parsed = (file: string): Dockerfile => DockerfileParser.parse(read(file));

/** The instructions of the last stage (the image that ships), keyword and expanded words. */
function finalStage(file: string): { keyword: string; words: string[] }[] {
  const instructions = parsed(file).getInstructions();
  const from = instructions.map((i) => i.getKeyword()).lastIndexOf("FROM");
  return instructions.slice(from).map((instruction) => ({
    keyword: instruction.getKeyword(),
    words: instruction.getExpandedArguments().map((argument) => argument.getValue()),
  }));
}

/** The workspaces a Dockerfile's production install keeps (`npm pkg set ... workspaces=[...]`). */
function imageWorkspaces(file: string): string[] {
  const json = /npm pkg set --json 'workspaces=(\[[^\]]*\])'/.exec(runText(file))?.[1];
  if (json === undefined) throw new Error(`${file} sets no workspaces for its production install`);
  return JSON.parse(json) as string[];
}

function runText(file: string): string {
  return parsed(file)
    .getInstructions()
    .filter((instruction) => instruction.getKeyword() === "RUN")
    .map((instruction) => instruction.getArgumentsContent() ?? "")
    .join("\n");
}

/** onnxruntime-node's own description of what its install script downloads. */
const onnxruntimeInstall = createRequire(
  join(ROOT, "node_modules", "onnxruntime-node", "package.json"),
)("./script/install-metadata.js") as {
  requirements: Record<string, string[]>;
  manifests: Record<string, Record<string, unknown>>;
};

interface NpmTree {
  dependencies?: Record<string, NpmTree>;
}

function productionTreeHas(workspace: string, name: string): boolean {
  // npm's own resolution of the lockfile, production dependencies only: what an image keeps
  // for that entry point after `npm prune --omit=dev`. (npm ls exits 1 when nothing matches.)
  const result = spawnSync(
    "npm",
    ["ls", name, "--omit=dev", "--package-lock-only", "--all", "--json", "-w", workspace],
    { cwd: ROOT, encoding: "utf8" },
  );
  const has = (tree: NpmTree): boolean =>
    Object.entries(tree.dependencies ?? {}).some(([dep, sub]) => dep === name || has(sub));
  return has(JSON.parse(result.stdout) as NpmTree);
}

/**
 * Runs onnxruntime-node's install script with `flag` (ONNXRUNTIME_NODE_INSTALL) the way an
 * image build runs it, from a copy with no provider files yet, through a local proxy that
 * records and refuses every connection: returns the hosts it tried to download from.
 */
async function installerDownloads(flag: string, workDir: string): Promise<string[]> {
  const copy = join(workDir, `onnxruntime-node-${flag}`);
  cpSync(join(ROOT, "node_modules", "onnxruntime-node", "script"), join(copy, "script"), {
    recursive: true,
  });
  const hosts: string[] = [];
  const proxy = createServer((request, response) => {
    hosts.push(request.headers.host ?? "");
    response.writeHead(502).end();
  });
  proxy.on("connect", (request, socket) => {
    hosts.push(request.url ?? "");
    socket.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const { port } = proxy.address() as { port: number };
  try {
    const child = spawn(process.execPath, ["script/install.js"], {
      cwd: copy,
      // Only what a build has: no npm_* variables (they would mark a local install).
      env: {
        PATH: process.env.PATH ?? "",
        NODE_PATH: join(ROOT, "node_modules"),
        GLOBAL_AGENT_HTTPS_PROXY: `http://127.0.0.1:${port}`,
        ONNXRUNTIME_NODE_INSTALL: flag,
      },
      stdio: "ignore",
    });
    await new Promise((resolve) => child.once("exit", resolve));
    return hosts;
  } finally {
    proxy.close();
  }
}

describe("the images", () => {
  it.each(DOCKERFILES)("%s passes the Dockerfile validator", (file) => {
    expect(validate(read(file)).map((d) => `${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });

  it("the validator does catch a broken Dockerfile", () => {
    expect(validate("FROM node:20\nCOPY\nEXPOSE 99999\n").length).toBeGreaterThan(0);
  });

  it("the CPU worker's production dependencies have no onnxruntime; the GPU worker's do", () => {
    expect(productionTreeHas("apps/worker-cpu", "onnxruntime-node")).toBe(false);
    expect(productionTreeHas("apps/worker-gpu", "onnxruntime-node")).toBe(true);
  });

  it("the GPU worker scores without the model tools, and its image installs neither them nor the CPU pool", () => {
    expect(productionTreeHas("apps/worker-gpu", "@assay/verifier")).toBe(true);
    expect(productionTreeHas("apps/worker-gpu", "@assay/model-tools")).toBe(false);
    expect(productionTreeHas("apps/worker-gpu", "onnx-proto")).toBe(false);
    const gpu = imageWorkspaces("gpu.Dockerfile");
    expect(gpu).toContain("apps/worker-gpu");
    for (const left of ["packages/model-tools", "apps/worker-cpu", "apps/producer"]) {
      expect(gpu).not.toContain(left);
    }
    // The CPU image carries the verifier's scorer definitions (the producer checks a spec's
    // verifier args), not the model tools.
    const cpu = imageWorkspaces("Dockerfile");
    expect(cpu).toEqual(expect.arrayContaining(["packages/verifier", "apps/producer"]));
    expect(cpu).not.toContain("packages/model-tools");
  });

  it("the CPU image skips onnxruntime-node's CUDA download", () => {
    expect(read("Dockerfile")).toMatch(/^ENV ONNXRUNTIME_NODE_INSTALL=skip$/m);
    expect(finalStage("Dockerfile")[0]?.words[0]).toMatch(/^node:20-/);
  });

  it("the GPU image ships on a CUDA 12 + cuDNN runtime base, with Node 20", () => {
    const stage = finalStage("gpu.Dockerfile");
    expect(stage[0]?.words[0]).toMatch(/^nvidia\/cuda:12\.\d+(\.\d+)?-cudnn-runtime-ubuntu/);
    const copiesNode = stage.some(
      ({ keyword, words }) =>
        keyword === "COPY" &&
        words.at(-1) === "/usr/local/bin/node" &&
        words.includes("/usr/local/bin/node"),
    );
    expect(copiesNode).toBe(true);
    const nodeStage = parsed("gpu.Dockerfile")
      .getFROMs()
      .find((from) => from.getBuildStage() === "node");
    expect(nodeStage?.getExpandedArguments()[0]?.getValue()).toMatch(/^node:20-/);
  });

  it("the GPU image installs onnxruntime-node's CUDA provider and fails the build without it", () => {
    const run = runText("gpu.Dockerfile");
    const flag = /ONNXRUNTIME_NODE_INSTALL=(\S+) node script\/install\.js/.exec(run)?.[1];
    // A value the installed onnxruntime-node accepts on linux/x64 (the script throws otherwise).
    expect(onnxruntimeInstall.requirements["linux/x64"]).toContain(flag);
    // Every file its manifest downloads is checked after the install.
    const files = Object.keys(onnxruntimeInstall.manifests[`linux/x64:${flag}`] ?? {}).map((f) =>
      f.replace(/^\.\//, ""),
    );
    expect(files.length).toBeGreaterThan(0);
    const checked = /for lib in ([^;]+);/.exec(run)?.[1]?.trim().split(/\s+/) ?? [];
    expect(checked.sort()).toEqual(files.sort());
    expect(run).toContain('test -s "bin/napi-v6/linux/x64/$lib"');
    // ... and the runtime stage checks that CUDA and cuDNN resolve for the provider.
    expect(run).toMatch(/ldd libonnxruntime_providers_cuda\.so/);
  });

  it("the GPU build's installer fetches the CUDA package; the CPU build's fetches nothing", async () => {
    const gpuFlag = /ONNXRUNTIME_NODE_INSTALL=(\S+) node script\/install\.js/.exec(
      runText("gpu.Dockerfile"),
    )?.[1];
    const cpuFlag = /^ENV ONNXRUNTIME_NODE_INSTALL=(\S+)$/m.exec(read("Dockerfile"))?.[1];
    const workDir = mkdtempSync(join(tmpdir(), "assay-ort-install-"));
    try {
      // The CUDA 12 provider comes from NuGet (the proxy refuses it: nothing leaves this host).
      expect(await installerDownloads(gpuFlag as string, workDir)).toEqual(["api.nuget.org:443"]);
      expect(await installerDownloads(cpuFlag as string, workDir)).toEqual([]);
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  });

  it("run as a non-root user", () => {
    for (const file of DOCKERFILES) {
      const user = finalStage(file).findLast(({ keyword }) => keyword === "USER");
      expect(user?.words[0], file).toMatch(/^(node|1000:1000)$/);
    }
  });
});

/**
 * The ignore file a builder applies to a build of `dockerfile` whose context is the
 * repository root: BuildKit takes `<Dockerfile>.dockerignore` beside the Dockerfile when
 * there is one, the classic builder only ever the context's own `.dockerignore`.
 */
function contextIgnore(builder: "classic" | "BuildKit", dockerfile: string) {
  const beside = join(INFRA, `${dockerfile}.dockerignore`);
  const file = builder === "BuildKit" && existsSync(beside) ? beside : join(ROOT, ".dockerignore");
  return dockerignore().add(readFileSync(file, "utf8"));
}

/** Every image, as each builder builds it. */
const BUILDS = DOCKERFILES.flatMap((file) =>
  (["classic", "BuildKit"] as const).map((builder) => [file, builder] as const),
);

describe("the build contexts", () => {
  const trackedFiles = execFileSync("git", ["ls-files"], { cwd: ROOT, encoding: "utf8" })
    .split("\n")
    .filter((file) => file !== "");

  it("are one file at the root, which both builders read", () => {
    expect(existsSync(join(ROOT, ".dockerignore"))).toBe(true);
    expect(trackedFiles).toContain(".dockerignore");
  });

  it.each(BUILDS)("of %s (%s builder) hold no secret and no local state", (file, builder) => {
    const ignore = contextIgnore(builder, file);
    for (const path of [
      // Passwords: Redis's and the analysts' (compose reads them from infra/.env).
      "infra/.env",
      ".env",
      "apps/cli/.env.local",
      // The repository's history, installed and built files, the embedded store, tests' files.
      ".git/config",
      "node_modules/.package-lock.json",
      ".assay/base/1/1259",
      ".assay.lock",
      "test/.tmp/vitest-results.json",
      ".turbo/cookies/1.cookie",
      "infra/datasets/nightly.jsonl",
      "infra/models/verifier/onnx/model.onnx",
    ]) {
      expect(ignore.ignores(path), path).toBe(true);
    }
  });

  it.each(BUILDS)("of %s (%s builder) never hold a model file", (file, builder) => {
    const ignore = contextIgnore(builder, file);
    const segment = fc.stringMatching(/^[a-z0-9_-]{1,8}$/);
    const modelPath = fc.oneof(
      // Any model weights anywhere...
      fc
        .tuple(fc.array(segment, { maxLength: 3 }), segment, fc.constantFrom(".onnx", ".onnx_data"))
        .map(([dirs, name, ext]) => [...dirs, `${name}${ext}`].join("/")),
      // ... and anything in the model folders the README and compose file use.
      fc
        .tuple(
          fc.constantFrom("models", ".models", "infra/models"),
          fc.array(segment, { minLength: 1, maxLength: 3 }),
        )
        .map(([root, rest]) => [root, ...rest].join("/")),
    );
    fc.assert(
      fc.property(modelPath, (path) => ignore.ignores(path)),
      { numRuns: 300 },
    );
    // No instruction copies a model folder in explicitly either.
    for (const instruction of parsed(file).getCOPYs()) {
      expect(instruction.getArgumentsContent()).not.toMatch(/models/);
    }
  });

  it.each(BUILDS)(
    "of %s (%s builder) hold every tracked source file the build needs",
    (file, builder) => {
      const ignore = contextIgnore(builder, file);
      const needed = trackedFiles.filter((path) =>
        /^(package(-lock)?\.json|turbo\.json|tsconfig\.base\.json|migrations\/.*|(apps|packages)\/[^/]+\/(src\/.*|package\.json|tsconfig\.build\.json|bin\/.*|scripts\/.*))$/.test(
          path,
        ),
      );
      expect(needed).toContain("migrations/meta/_journal.json");
      expect(needed).toContain("packages/store/scripts/make-pglite-template.mjs");
      expect(needed.filter((path) => ignore.ignores(path))).toEqual([]);
      // npm ci installs every workspace the root manifest lists: each needs its manifest.
      const workspaces = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"))
        .workspaces as string[];
      const manifests = trackedFiles.filter((path) =>
        workspaces.some((glob) =>
          new RegExp(`^${glob.replace("*", "[^/]+")}/package\\.json$`).test(path),
        ),
      );
      expect(manifests).toContain("test/support/package.json");
      expect(manifests.filter((path) => ignore.ignores(path))).toEqual([]);
      expect(ignore.ignores("node_modules/onnxruntime-node/package.json")).toBe(true);
    },
  );

  it.each(BUILDS)(
    "of %s (%s builder) leave out whatever else a checkout holds",
    (file, builder) => {
      const ignore = contextIgnore(builder, file);
      // What the README's commands leave in a checkout, and other things that are no source.
      for (const path of [
        ".assay-example/store/PG_VERSION",
        ".assay-example/report.html",
        ".assay/base/1/1259",
        ".assay.lock",
        "scores.csv",
        "exports/night-2.csv",
        "report.html",
        "nightly.jsonl",
        "test/.tmp/vitest-results.json",
        "test/infra/compose.test.ts",
        "infra/.env",
        ".env",
        "infra/datasets/nightly.jsonl",
        "examples/mixed.jsonl",
        "coverage/index.html",
        "bench-results/store.json",
        ".git/HEAD",
        ".turbo/cookies/1.cookie",
        "node_modules/onnxruntime-node/package.json",
        "apps/cli/dist/main.js",
        "packages/store/dist/pglite-template.tar.gz",
        "packages/core/node_modules/zod/package.json",
        "packages/core/tsconfig.tsbuildinfo",
      ]) {
        expect(ignore.ignores(path), path).toBe(true);
      }
      // Anything at the top but the build's own files and folders, whatever its name (but
      // names such as valueOf, which the library's results cache, a plain object, answers).
      const kept = new Set([
        "package.json",
        "package-lock.json",
        "turbo.json",
        "tsconfig.base.json",
        "migrations",
        "apps",
        "packages",
        "test",
      ]);
      const name = fc
        .stringMatching(/^[A-Za-z0-9._-]{1,12}$/)
        .filter((n) => !kept.has(n) && !/^\.+$/.test(n) && !(n in Object.prototype));
      const rest = fc.array(fc.stringMatching(/^[a-z0-9_-][a-z0-9_.-]{0,7}$/), { maxLength: 2 });
      fc.assert(
        fc.property(name, rest, (top, under) => ignore.ignores([top, ...under].join("/"))),
        { numRuns: 300 },
      );
    },
  );
});
