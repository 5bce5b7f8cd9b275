import { copyFile, link, mkdir, readdir, realpath, rename, rm, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join, normalize, resolve, sep } from "node:path";
import {
  type AssayConfig,
  ModelFolderError,
  type PreparedHead,
  type ResolveOptions,
  resolveModelDir,
} from "@assay/verifier";
import {
  folderFile,
  ProtoReader,
  preparedOutput,
  readAssayConfig,
  readJsonFile,
} from "@assay/verifier/tooling";
import { readOnnxModel } from "./onnx-file.js";
import { planRewrite } from "./plan-rewrite.js";
import { writePreparedOnnx } from "./write-onnx.js";

export interface PrepareModelOptions extends ResolveOptions {
  /** Heads the prepared graph serves. Default: the head of assay.json. */
  heads?: readonly PreparedHead[];
}

export interface PreparedModel {
  dir: string;
  heads: PreparedHead[];
  /** Inputs and outputs the prepared graph adds. */
  inputs: string[];
  outputs: string[];
  /** The LM head the position is gathered before; null for a probe on a hidden-state output. */
  lmHead: string | null;
  /** External data files, kept by reference: hard-linked, or copied across file systems. */
  externalFiles: { name: string; linked: boolean }[];
  /** Sizes of onnx/model.onnx before and after (external data not counted). */
  originalBytes: number;
  preparedBytes: number;
}

/** Top-level files that are graphs or weights, never copied as folder files. */
const GRAPH_FILE = /\.onnx(_data|\.data)?$/;

/**
 * Writes a copy of a model folder whose graph computes and returns only what the head
 * reads: it takes `score_position` (int64 [batch]) and returns `score_logprobs`
 * ([batch, G], the scale tokens' log-probabilities, for a distribution head; the scale's
 * token ids enter as `score_token_ids`) and/or `score_hidden` ([batch, hidden], for a probe
 * head). The LM head runs at one position per row instead of every position. Weights are
 * not touched: inline ones are copied byte for byte, external data files are hard-linked.
 */
export async function prepareModel(
  source: string,
  out: string,
  options: PrepareModelOptions = {},
): Promise<PreparedModel> {
  const dir = await resolveModelDir(source, options);
  const target = resolve(out);
  await refuseSameFolder(dir, target);
  const config = await readAssayConfig(dir);
  const assayFile = join(dir, "assay.json");
  if (config.graph === "prepared") {
    throw new ModelFolderError(
      assayFile,
      "this folder is already prepared; prepare the original export",
      "graph",
    );
  }
  const probe = await probeFile(dir, config);
  const heads = [...new Set(options.heads ?? [config.head.type])];
  if (!heads.includes(config.head.type)) {
    throw new ModelFolderError(
      assayFile,
      `the head is \`${config.head.type}\`, so the prepared graph must serve it (heads asked: ${heads.join(", ")})`,
      "head.type",
    );
  }
  const onnxFile = join(dir, "onnx", "model.onnx");
  await mkdir(join(target, "onnx"), { recursive: true });
  const reader = await ProtoReader.open(onnxFile);
  let preparedBytes: number;
  let plan: ReturnType<typeof planRewrite>;
  let externalFiles: string[];
  try {
    const model = await readOnnxModel(reader);
    plan = planRewrite(model, {
      heads,
      logits: config.head.type === "distribution" ? config.head.output : "logits",
      hidden: config.head.type === "probe" ? config.head.output : "last_hidden_state",
    });
    externalFiles = model.externalFiles;
    const partial = join(target, "onnx", "model.onnx.partial");
    preparedBytes = await writePreparedOnnx(reader, model, plan, partial);
    await rename(partial, join(target, "onnx", "model.onnx"));
  } finally {
    await reader.close();
  }
  const linked = [];
  for (const name of externalFiles) {
    linked.push({ name, linked: await linkOrCopy(onnxFile, name, join(target, "onnx")) });
  }
  await copyFolderFiles(dir, target, probe);
  await writePreparedAssayJson(dir, target, config.head.type);
  return {
    dir: target,
    heads,
    inputs: plan.inputs.map((i) => i.name ?? ""),
    outputs: plan.outputs.map((o) => o.name ?? ""),
    lmHead: plan.lmHead,
    externalFiles: linked,
    originalBytes: reader.size,
    preparedBytes,
  };
}

async function refuseSameFolder(dir: string, target: string): Promise<void> {
  const real = await realpath(target).catch(() => target);
  if (real === (await realpath(dir))) {
    throw new ModelFolderError(
      target,
      "the output folder is the model folder itself; pass another folder with --out",
    );
  }
}

/**
 * An external data file next to the prepared graph, at the same relative location: a hard
 * link (no bytes copied) or, across file systems, a kernel copy. Never read into memory.
 */
async function linkOrCopy(onnxFile: string, location: string, targetDir: string): Promise<boolean> {
  const relative = normalize(location);
  if (isAbsolute(relative) || relative === ".." || relative.startsWith(`..${sep}`)) {
    throw new ModelFolderError(
      onnxFile,
      `external data location \`${location}\` lies outside the onnx/ folder`,
    );
  }
  const from = join(dirname(onnxFile), relative);
  const to = join(targetDir, relative);
  await mkdir(dirname(to), { recursive: true });
  await rm(to, { force: true });
  try {
    await link(from, to);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      throw new ModelFolderError(from, "missing: the graph keeps its weights in this file");
    }
    await copyFile(from, to);
    return false;
  }
}

/** A probe file named in assay.json (`name`) and its real path inside the folder. */
interface ProbeFile {
  name: string;
  from: string;
}

/** config.json, the tokenizer files and any other top-level file; the probe file. */
async function copyFolderFiles(
  dir: string,
  target: string,
  probe: ProbeFile | null,
): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isFile() || entry.name === "assay.json" || GRAPH_FILE.test(entry.name)) continue;
    await copyFile(join(dir, entry.name), join(target, entry.name));
  }
  if (probe !== null) {
    const to = join(target, normalize(probe.name));
    await mkdir(dirname(to), { recursive: true });
    await copyFile(probe.from, to);
  }
}

/** The probe file assay.json names, checked before anything is written. */
async function probeFile(dir: string, config: AssayConfig): Promise<ProbeFile | null> {
  if (config.head.type !== "probe" || typeof config.head.probe !== "string") return null;
  const name = config.head.probe;
  return { name, from: await folderFile(dir, name, "head.probe") };
}

/** The original assay.json with the head reading the prepared output and `graph: prepared`. */
async function writePreparedAssayJson(
  dir: string,
  target: string,
  head: PreparedHead,
): Promise<void> {
  const raw = (await readJsonFile(dir, "assay.json")) as Record<string, unknown> & {
    head: Record<string, unknown>;
  };
  raw.head.output = preparedOutput(head);
  raw.graph = "prepared";
  await writeFile(join(target, "assay.json"), `${JSON.stringify(raw, null, 2)}\n`);
}
