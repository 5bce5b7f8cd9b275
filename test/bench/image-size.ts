/**
 * Image sizes (`npm run bench:images`): each image's build stage emulated outside Docker
 * (test/infra/support/image-build.ts: the build context as the .dockerignore admits it, the
 * stage's RUN steps run as written, npm from its cache, this checkout's build copied in for
 * `npm run build`), for the Dockerfiles of this checkout and of a baseline revision, in the
 * same run. Prints, per image, `node_modules` and the folder the final stage copies in (its
 * application layer: what `COPY --from=build /app /app` adds to the base image), and the
 * ratio to the baseline. Sizes are `du`'s (MB of 1,048,576 bytes). Left out of both: the
 * GPU image's CUDA provider libraries, which its build downloads from NuGet (not reachable
 * here); they are the same files in both.
 *
 *   --baseline REV   the revision whose Dockerfiles are the baseline (default: the last
 *                    commit before infra/Dockerfile installed its own workspaces)
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  buildStage,
  contextFiles,
  emulateBuildStage,
  fileAt,
  fileNow,
  sizeMb,
} from "../infra/support/image-build.js";

const { values: flags } = parseArgs({
  options: { baseline: { type: "string", default: "534f2b8" } },
});
const baseline = flags.baseline ?? "534f2b8";

interface Sizes {
  nodeModules: number;
  app: number;
}

/** Emulates one Dockerfile's build stage with its build context; returns its sizes. */
function measure(dockerfile: string, ignore: string, dir: string): Sizes {
  const stage = buildStage(dockerfile);
  emulateBuildStage(stage, contextFiles(ignore), dir);
  return { nodeModules: sizeMb(join(dir, "node_modules")), app: sizeMb(dir) };
}

const work = mkdtempSync(join(tmpdir(), "assay-bench-images-"));
try {
  console.log(`baseline: the Dockerfiles at ${baseline}; now: this checkout's\n`);
  console.log("image                   node_modules (MB)        /app layer (MB)");
  for (const file of ["Dockerfile", "gpu.Dockerfile"]) {
    // The baseline's context: its per-Dockerfile ignore file, as BuildKit read it.
    const before = measure(
      fileAt(baseline, `infra/${file}`),
      fileAt(baseline, `infra/${file}.dockerignore`),
      join(work, `before-${file}`),
    );
    const now = measure(
      fileNow(`infra/${file}`),
      fileNow(".dockerignore"),
      join(work, `now-${file}`),
    );
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
    console.log(
      `${`infra/${file}`.padEnd(22)}  ${`${now.nodeModules} / ${before.nodeModules}`.padEnd(16)} ${ratio(now.nodeModules, before.nodeModules).padEnd(7)}  ${`${now.app} / ${before.app}`.padEnd(16)} ${ratio(now.app, before.app)}`,
    );
  }
  console.log("\n(now / baseline; target ≤ 0.50× each)");
} finally {
  rmSync(work, { recursive: true, force: true });
}
