import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { DockerfileParser, type Env } from "dockerfile-ast";
import { ROOT } from "./paths.js";

// A CommonJS module whose typings declare an ES default export; require it as it is.
const dockerignore = createRequire(import.meta.url)(
  "@balena/dockerignore",
) as typeof import("@balena/dockerignore").default;

/** What a Dockerfile's build stage does, read with a Dockerfile parser. */
export interface BuildStage {
  /** Its ENV instructions, in effect for every RUN after them (the stage has them first). */
  env: Record<string, string>;
  /** The shell command of each RUN instruction, in order. */
  runs: string[];
  /** The folder the final stage copies from it (`COPY --from=build <folder> ...`). */
  shipped: string;
}

/** The stage named `build` of `dockerfile` (text), and what the final stage takes from it. */
export function buildStage(dockerfile: string): BuildStage {
  const instructions = DockerfileParser.parse(dockerfile).getInstructions();
  const start = instructions.findIndex(
    (i) => i.getKeyword() === "FROM" && /\bAS build$/i.test(i.getArgumentsContent() ?? ""),
  );
  if (start < 0) throw new Error("the Dockerfile has no stage named build");
  const end = instructions.findIndex((i, n) => n > start && i.getKeyword() === "FROM");
  const stage = instructions.slice(start + 1, end < 0 ? undefined : end);
  const env: Record<string, string> = {};
  const runs: string[] = [];
  for (const instruction of stage) {
    const text = (instruction.getArgumentsContent() ?? "").replace(/\\\n/g, " ");
    if (instruction.getKeyword() === "ENV") {
      for (const property of (instruction as Env).getProperties()) {
        env[property.getName()] = property.getValue() ?? "";
      }
    } else if (instruction.getKeyword() === "RUN") {
      runs.push(text);
    }
  }
  const copy = DockerfileParser.parse(dockerfile)
    .getCOPYs()
    .find((c) => c.getFromFlag()?.getValue() === "build");
  const shipped = copy?.getArguments().at(-2)?.getValue();
  if (shipped === undefined) throw new Error("the final stage copies nothing from the build stage");
  return { env, runs, shipped };
}

/**
 * The RUN steps an emulation leaves out, and why: the download of onnxruntime's CUDA
 * provider from NuGet, which this host cannot reach (its libraries are files of the one
 * package that stays, not packages of their own).
 */
export const LEFT_OUT = [/node script\/install\.js/];

/** The repository's files that `ignore` (a .dockerignore's text) lets into a build context. */
export function contextFiles(ignore: string): string[] {
  const rules = dockerignore().add(ignore);
  return execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
  })
    .split("\n")
    .filter((file) => file !== "" && existsSync(join(ROOT, file)) && !rules.ignores(file));
}

/**
 * Emulates `docker build`'s build stage outside Docker: copies the build context (`files`)
 * into `dir` (the stage's WORKDIR) and runs each RUN there with `sh`, the stage's ENV set
 * and npm offline (from the cache an `npm ci` of this checkout filled). `npm run build` is
 * this checkout's build, already made: it copies each workspace's dist/ into the context
 * instead of compiling again. Returns the RUN steps it left out (LEFT_OUT).
 */
export function emulateBuildStage(stage: BuildStage, files: string[], dir: string): string[] {
  for (const file of files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(ROOT, file), join(dir, file));
  }
  return runSteps(stage.env, stage.runs, dir);
}

/**
 * `emulateBuildStage` for several stages of one build context, each into its folder of
 * `dirs`: the steps they begin with alike (an `npm ci`, a build) run once, as a builder's
 * cache would, and their result is copied for each stage before the rest of its steps.
 */
export function emulateBuildStages(stages: BuildStage[], files: string[], dirs: string[]): void {
  const [first, ...others] = stages;
  if (first === undefined) return;
  const sameEnv = others.every((s) => JSON.stringify(s.env) === JSON.stringify(first.env));
  let shared = 0;
  while (
    sameEnv &&
    shared < first.runs.length &&
    others.every((s) => s.runs[shared] === first.runs[shared])
  ) {
    shared += 1;
  }
  const [base, ...copies] = dirs as [string, ...string[]];
  emulateBuildStage({ ...first, runs: first.runs.slice(0, shared) }, files, base);
  for (const copy of copies) execFileSync("cp", ["-a", base, copy]);
  for (const [n, stage] of stages.entries()) {
    runSteps(stage.env, stage.runs.slice(shared), dirs[n] as string);
  }
}

function runSteps(env: Record<string, string>, runs: string[], dir: string): string[] {
  const builtDists = ["apps", "packages"]
    .flatMap((parent) => readdirSync(join(ROOT, parent)).map((name) => `${parent}/${name}/dist`))
    .filter((dist) => existsSync(join(ROOT, dist)) && existsSync(join(dir, dirname(dist))));
  // `npm run build` as the checkout ran it: its outputs, copied. Any other npm command runs.
  const npm = [
    "npm() {",
    '  if [ "$1 $2" = "run build" ] && [ "$#" -eq 2 ]; then',
    ...builtDists.map((dist) => `    cp -R "$ASSAY_ROOT/${dist}" "${dist}" || return 1`),
    '  else command npm "$@"; fi',
    "}",
  ].join("\n");
  const skipped: string[] = [];
  for (const run of runs) {
    if (LEFT_OUT.some((pattern) => pattern.test(run))) {
      skipped.push(run);
      continue;
    }
    const result = spawnSync("sh", ["-c", `set -e\n${npm}\n${run}`], {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ...env,
        ASSAY_ROOT: ROOT,
        npm_config_offline: "true",
        npm_config_update_notifier: "false",
      },
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    if (result.status !== 0) {
      throw new Error(
        `RUN ${run}\nexited ${result.status ?? result.signal} in ${dir}:\n${result.stderr.slice(-4000)}`,
      );
    }
  }
  return skipped;
}

/** The size of `path` on disk, in MB (1,048,576 bytes), as `du` counts it. */
export function sizeMb(path: string): number {
  const kib = Number(execFileSync("du", ["-sk", path], { encoding: "utf8" }).split("\t")[0]);
  return Math.round((kib / 1024) * 10) / 10;
}

/** A file of the repository at a git revision (the Dockerfiles of a baseline). */
export function fileAt(revision: string, path: string): string {
  return execFileSync("git", ["show", `${revision}:${path}`], { cwd: ROOT, encoding: "utf8" });
}

/** The text of a file of this checkout. */
export function fileNow(path: string): string {
  return readFileSync(join(ROOT, path), "utf8");
}
