import { copyFile, link, mkdir, readdir, realpath, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ModelFolderError } from "@assay/verifier";
import { readJsonFile } from "@assay/verifier/tooling";
import type { FittedProbe } from "./fit-probe.js";

/** Written next to assay.json: how the probe was fitted and what it scored held out. */
export const PROBE_FIT_FILE = "probe-fit.json";

export interface WrittenProbeModel {
  dir: string;
  /** Files under onnx/: hard-linked (no bytes copied) or copied across file systems. */
  graphFiles: { name: string; linked: boolean }[];
}

/**
 * A complete model folder at `target`: the source's files, its onnx/ files hard-linked
 * (or copied across file systems), and an assay.json whose head is the fitted probe. The
 * probe was fitted on the first template and the first criterion, so the new assay.json
 * keeps only those (other variants or criteria would score prompts the probe never saw).
 */
export async function writeProbeModel(
  source: string,
  target: string,
  fitted: FittedProbe,
): Promise<WrittenProbeModel> {
  await mkdir(target, { recursive: true });
  if ((await realpath(target)) === (await realpath(source))) {
    throw new ModelFolderError(
      target,
      "the output folder is the model folder itself; pass another folder with --out",
    );
  }
  for (const entry of await readdir(source, { withFileTypes: true })) {
    if (!entry.isFile() || entry.name === "assay.json" || entry.name === PROBE_FIT_FILE) continue;
    await copyFile(join(source, entry.name), join(target, entry.name));
  }
  const graphFiles = await linkFolder(join(source, "onnx"), join(target, "onnx"));
  const config = (await readJsonFile(source, "assay.json")) as Record<string, unknown>;
  const criteria = config.criteria as unknown[] | undefined;
  delete config.variants;
  if (criteria !== undefined) config.criteria = criteria.slice(0, 1);
  config.head = {
    type: "probe",
    probe: fitted.probe,
    bias: fitted.bias,
    sigmoid: true,
    output: fitted.output,
  };
  await writeJson(join(target, "assay.json"), config);
  await writeJson(join(target, PROBE_FIT_FILE), fitted.report);
  return { dir: target, graphFiles };
}

async function linkFolder(from: string, to: string): Promise<{ name: string; linked: boolean }[]> {
  await mkdir(to, { recursive: true });
  const done: { name: string; linked: boolean }[] = [];
  for (const entry of await readdir(from, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const target = join(to, entry.name);
    await rm(target, { force: true });
    try {
      await link(join(from, entry.name), target);
      done.push({ name: entry.name, linked: true });
    } catch {
      await copyFile(join(from, entry.name), target);
      done.push({ name: entry.name, linked: false });
    }
  }
  return done;
}

async function writeJson(path: string, value: unknown): Promise<void> {
  await writeFile(path, `${JSON.stringify(value, null, 2)}\n`);
}
