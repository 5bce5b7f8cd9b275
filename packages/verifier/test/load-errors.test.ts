import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, SpecError } from "@assay/core";
import { tempRoot, tinyModel } from "@assay/test-support/tiny-models";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createVerifierScorer,
  loadModel,
  ModelFolderError,
  VerifierArgsError,
  type VerifierModel,
} from "../src/index.js";

let counter = 0;
/** A copy of a tiny model folder, edited by `edit`. */
async function brokenCopy(edit: (dir: string) => void, options = {}): Promise<string> {
  counter += 1;
  const dir = join(tempRoot, `broken-${counter}`);
  cpSync(await tinyModel(options), dir, { recursive: true });
  edit(dir);
  return dir;
}

function editJson(
  dir: string,
  file: string,
  change: (json: Record<string, unknown>) => void,
): void {
  const path = join(dir, file);
  const json = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  change(json);
  writeFileSync(path, JSON.stringify(json));
}

async function loadError(dir: string): Promise<ModelFolderError> {
  const error = await loadModel(dir, { threads: 1 }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelFolderError);
  return error as ModelFolderError;
}

describe("loading a bad model folder", () => {
  it.each(["tokenizer.json", "config.json", "onnx/model.onnx", "assay.json"])(
    "names the missing file %s",
    async (file) => {
      const dir = await brokenCopy((d) => rmSync(join(d, file)));
      const error = await loadError(dir);
      expect(error.file).toBe(join(dir, file));
      expect(error.message).toContain(file);
    },
  );

  it("names the file and the graph width when the output shape disagrees with config.json", async () => {
    const dir = await brokenCopy((d) => editJson(d, "config.json", (c) => (c.hidden_size = 64)));
    const error = await loadError(dir);
    expect(error.file).toBe(join(dir, "onnx", "model.onnx"));
    expect(error.message).toMatch(/width 32 .*hidden_size is 64/);
  });

  it("names the output when the head reads one the graph lacks", async () => {
    const dir = await brokenCopy(
      (d) =>
        editJson(
          d,
          "assay.json",
          (c) => ((c.head as Record<string, unknown>).output = "pooler_output"),
        ),
      { kind: "encoder" },
    );
    const error = await loadError(dir);
    expect(error.message).toContain("no `pooler_output` output");
  });

  it("refuses a probe whose length is not the hidden size, naming assay.json and head.probe", async () => {
    const dir = await brokenCopy((d) =>
      editJson(d, "assay.json", (c) => {
        const head = c.head as { probe: number[] };
        head.probe = head.probe.slice(1);
      }),
    );
    const error = await loadError(dir);
    expect(error.file).toBe(join(dir, "assay.json"));
    expect(error.field).toBe("head.probe");
    expect(error.message).toContain("31 values but the model's hidden size is 32");
  });

  it("names the field of an invalid assay.json", async () => {
    const dir = await brokenCopy((d) => editJson(d, "assay.json", (c) => (c.max_length = -5)));
    const error = await loadError(dir);
    expect(error.field).toBe("max_length");
    expect(error.message).toContain("assay.json");
  });

  it("refuses a 1..20 digit scale on Qwen3's tokenizer, naming the level and how it splits", async () => {
    const digits = Array.from({ length: 20 }, (_, i) => String(i + 1));
    const dir = await brokenCopy(
      (d) => editJson(d, "assay.json", (c) => ((c.head as { scale: string[] }).scale = digits)),
      { head: "distribution" },
    );
    const error = await loadError(dir);
    expect(error.field).toBe("head.scale");
    expect(error.message).toContain('scale level 10 "10" is 2 tokens');
    expect(error.message).toContain('"1" + "0"');
  });

  it("tells the user to pass a local folder when a hub id cannot be downloaded", async () => {
    const error = await loadModel("someone/some-verifier", {
      cacheDir: join(tempRoot, "hub-cache"),
      hubUrl: "http://127.0.0.1:9",
    }).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(ModelFolderError);
    expect(error?.message).toMatch(/pass its local folder/);
  });

  it("names a folder that does not exist", async () => {
    const error = await loadError("./no/such/model");
    expect(error.message).toContain("no such model folder");
  });
});

describe("scale and repetitions checks", () => {
  let model: VerifierModel;
  beforeAll(async () => {
    model = await loadModel(await tinyModel({ head: "distribution" }), { threads: 1 });
  });
  afterAll(() => model.close());

  it("accepts A..T (each one token) and refuses 1..20 as a scorer override", () => {
    const letters = "ABCDEFGHIJKLMNOPQRST".split("");
    expect(() =>
      createVerifierScorer(model, { model: model.name, head: { scale: letters } }),
    ).not.toThrow();
    const digits = Array.from({ length: 20 }, (_, i) => String(i + 1));
    expect(() =>
      createVerifierScorer(model, { model: model.name, head: { scale: digits } }),
    ).toThrow(/"10" is 2 tokens/);
  });

  it("refuses K>1 repetitions with a single prompt variant", () => {
    const [template] = [model.config.template];
    const make = () =>
      createVerifierScorer(model, { model: model.name, variants: [template], repetitions: 3 });
    expect(make).toThrow(VerifierArgsError);
    expect(make).toThrow(/identical prompts/);
    // The spec must change, not the environment.
    expect(make).toThrow(SpecError);
    expect(make).not.toThrow(ConfigError);
    expect(() => createVerifierScorer(model, { model: model.name, repetitions: 3 })).not.toThrow();
    expect(() => createVerifierScorer(model, { model: model.name, repetitions: 4 })).toThrow(
      /at most 3/,
    );
  });
});
