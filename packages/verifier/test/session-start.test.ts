import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempRoot, tinyModel } from "@assay/test-support/tiny-models";
import { describe, expect, it } from "vitest";
import { createSession, ModelFolderError } from "../src/index.js";

describe("starting an inference thread", () => {
  it("reports the graph's inputs and outputs with their types and shapes", async () => {
    const model = join(await tinyModel(), "onnx", "model.onnx");
    const session = await createSession(model);
    try {
      expect(session.inputNames).toContain("input_ids");
      expect(session.outputNames.length).toBeGreaterThan(0);
      const ids = session.inputMetadata.find((m) => m.name === "input_ids");
      expect(ids).toMatchObject({ isTensor: true, type: "int64" });
      expect(ids?.shape).toHaveLength(2);
    } finally {
      await session.release();
    }
  });

  it("refuses a file onnxruntime cannot load, naming the file and onnxruntime's reason", async () => {
    const folder = join(tempRoot, "not-a-graph");
    mkdirSync(folder, { recursive: true });
    const file = join(folder, "model.onnx");
    writeFileSync(file, "this is not an ONNX graph\n");
    const error = await createSession(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelFolderError);
    expect(String(error)).toContain(file);
    expect(String(error)).toMatch(/onnxruntime cannot load the model: .*protobuf/i);
  });
});
