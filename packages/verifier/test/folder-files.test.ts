import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { prepareModel } from "@assay/model-tools";
import { tempRoot, tinyModel } from "@assay/test-support/tiny-models";
import { describe, expect, it } from "vitest";
import { loadModel, ModelFolderError } from "../src/index.js";

// A model folder may come from anyone. The files its assay.json names must lie inside it,
// and no refusal may quote a file: the secret below, outside every model folder, must never
// be read into a probe, copied, or appear in a message.
const SECRET = "TOP-SECRET-7f3a9c not json";
const outside = join(tempRoot, "outside");
mkdirSync(outside, { recursive: true });
const secretFile = join(outside, "secret.txt");
writeFileSync(secretFile, SECRET);
// A probe of the right length outside: read, it would silently become the model's head.
const outsideProbe = join(outside, "probe.json");
writeFileSync(outsideProbe, JSON.stringify(Array.from({ length: 32 }, () => 0.5)));

let counter = 0;
/** A copy of the tiny probe model whose assay.json names `probe`, after `prepare` ran in it. */
async function modelNaming(probe: string, prepare: (dir: string) => void = () => {}) {
  counter += 1;
  const dir = join(tempRoot, "folders", `model-${counter}`);
  cpSync(await tinyModel(), dir, { recursive: true });
  prepare(dir);
  const file = join(dir, "assay.json");
  const config = JSON.parse(readFileSync(file, "utf8")) as { head: { probe: unknown } };
  config.head.probe = probe;
  writeFileSync(file, JSON.stringify(config));
  return dir;
}

async function loadError(dir: string): Promise<ModelFolderError> {
  const error = await loadModel(dir, { threads: 1 }).then(
    (model) => model.close().then(() => null),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelFolderError);
  const refusal = error as ModelFolderError;
  expect(refusal.message).not.toContain("TOP-SECRET");
  expect(refusal.stack ?? "").not.toContain("TOP-SECRET");
  return refusal;
}

describe("files named in assay.json stay inside the model folder", () => {
  it.each([
    ["a `..` path", () => "../../outside/secret.txt", /leads out of the model folder/],
    ["an absolute path", () => secretFile, /is an absolute path/],
    ["an absolute path to a valid probe", () => outsideProbe, /is an absolute path/],
  ])("refuses %s, naming assay.json and head.probe", async (_, probe, says) => {
    const dir = await modelNaming(probe());
    const error = await loadError(dir);
    expect(error.file).toBe(join(dir, "assay.json"));
    expect(error.field).toBe("head.probe");
    expect(error.message).toMatch(says);
    expect(error.message).toContain(probe());
  });

  it.each([
    [
      "a file link",
      "probe.json",
      (dir: string) => symlinkSync(outsideProbe, join(dir, "probe.json")),
    ],
    [
      "a secret behind a link",
      "leak.json",
      (dir: string) => symlinkSync(secretFile, join(dir, "leak.json")),
    ],
    [
      "a folder link",
      "probes/probe.json",
      (dir: string) => symlinkSync(outside, join(dir, "probes")),
    ],
  ])("refuses %s whose target leaves the folder", async (_, probe, link) => {
    const dir = await modelNaming(probe, link);
    const error = await loadError(dir);
    expect(error.field).toBe("head.probe");
    expect(error.message).toMatch(/symbolic link .* outside the model folder/);
  });

  it("follows a link that stays inside the folder", async () => {
    const values = JSON.stringify(Array.from({ length: 32 }, (_, i) => i / 100));
    const dir = await modelNaming("probe.json", (d) => {
      mkdirSync(join(d, "probes"));
      writeFileSync(join(d, "probes", "real.json"), values);
      symlinkSync(join("probes", "real.json"), join(d, "probe.json"));
    });
    const model = await loadModel(dir, { threads: 1 });
    expect(model.probe?.[1]).toBeCloseTo(0.01);
    await model.close();
  });

  it("never quotes a file it cannot parse, inside the folder or not", async () => {
    const probeDir = await modelNaming("probe.json", (d) =>
      writeFileSync(join(d, "probe.json"), SECRET),
    );
    const probe = await loadError(probeDir);
    expect(probe.file).toBe(join(probeDir, "probe.json"));
    expect(probe.message).toMatch(/not valid JSON/);

    const tokenizerDir = await modelNaming("probe.json", (d) =>
      writeFileSync(join(d, "tokenizer_config.json"), SECRET),
    );
    expect((await loadError(tokenizerDir)).file).toBe(join(tokenizerDir, "tokenizer_config.json"));
  });

  it("`model prepare` refuses before it writes anything, and copies nothing from outside", async () => {
    const dir = await modelNaming("../../outside/secret.txt");
    // Copied by its name, the secret would land at folders/outside/secret.txt.
    const out = join(tempRoot, "folders", "out", "prepared");
    const error = await prepareModel(dir, out).then(
      () => null,
      (e: unknown) => e as ModelFolderError,
    );
    expect(error).toBeInstanceOf(ModelFolderError);
    expect(error?.field).toBe("head.probe");
    expect(existsSync(out)).toBe(false);
    expect(existsSync(join(tempRoot, "folders", "outside"))).toBe(false);
  });
});
