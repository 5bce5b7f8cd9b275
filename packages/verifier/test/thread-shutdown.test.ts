import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { processOutput } from "@assay/test-support/process-output";
import { tempRoot, tinyModel } from "@assay/test-support/tiny-models";
import { describe, expect, it } from "vitest";

const SOURCE = new URL("../src/index.ts", import.meta.url).href;
const TSX = fileURLToPath(new URL("../../../node_modules/tsx/dist/esm/index.mjs", import.meta.url));

describe("inference thread shutdown", () => {
  // The thread is unref'd between calls so an idle model never keeps a process alive. A
  // release awaited with nothing else pending must still finish: the process must not end
  // first (Node exits with 13, "unsettled top-level await").
  it("releases a session when nothing else keeps the process alive", async () => {
    const model = await tinyModel();
    const script = join(tempRoot, "release-session.mts");
    writeFileSync(
      script,
      `import { createSession } from ${JSON.stringify(SOURCE)};
const session = await createSession(${JSON.stringify(join(model, "onnx", "model.onnx"))});
await session.release();
console.log("released");
`,
    );
    const child = spawn(process.execPath, ["--conditions=@assay/source", "--import", TSX, script], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const { code, stdout, stderr } = await processOutput(child);
    expect(code, stderr).toBe(0);
    expect(stdout).toBe("released\n");
  });
});
