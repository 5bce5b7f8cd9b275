import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { processOutput } from "@assay/test-support/process-output";
import { tempRoot, tinyModel } from "@assay/test-support/tiny-models";
import { describe, expect, it } from "vitest";

const INDEX = fileURLToPath(new URL("../src/index.ts", import.meta.url));

/** Runs a script of its own on the tiny model, so that a native abort is a failed exit. */
async function runScript(script: string) {
  const child = spawn(
    process.execPath,
    ["--conditions=@assay/source", "--import", "tsx", script, await tinyModel()],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  return processOutput(child);
}

describe("releasing a session", () => {
  it("keeps the process alive until the inference thread has released it", async () => {
    // After a pass the idle inference thread is unref'd; nothing else holds this script's
    // event loop, so an unheld release would end the process before the reply (exit 13).
    const script = join(tempRoot, "release.mts");
    writeFileSync(
      script,
      `import { loadModel } from ${JSON.stringify(INDEX)};
const model = await loadModel(process.argv[2], { threads: 1 });
await model.forward([1, 2, 3], model.config.head.output);
await model.fitThread.close();
await model.runner.session.release();
console.log("released");
`,
    );
    const { code, stdout, stderr } = await runScript(script);
    expect(code, stderr).toBe(0);
    expect(stdout.trim()).toBe("released");
  });

  it("closes a model once when the verifier and pairwise definitions both close their cache", async () => {
    // The registry closes every definition at once, and the two verifier definitions share
    // one model cache: a second release racing the first used to terminate the inference
    // thread mid-release, which aborts the process from native code.
    const script = join(tempRoot, "close-twice.mts");
    writeFileSync(
      script,
      `import { defineVerifierScorers, loadModel } from ${JSON.stringify(INDEX)};
const model = await loadModel(process.argv[2], { threads: 1 });
await model.forward([1, 2, 3], model.config.head.output);
const definitions = defineVerifierScorers({ models: [model] });
await Promise.all(definitions.map((definition) => definition.close?.()));
await Promise.all([model.close(), model.close()]);
console.log("closed");
`,
    );
    const { code, stdout, stderr } = await runScript(script);
    expect(code, stderr).toBe(0);
    expect(stdout.trim()).toBe("closed");
  });
});
