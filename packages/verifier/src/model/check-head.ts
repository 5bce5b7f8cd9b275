import { join } from "node:path";
import type { AssayConfig } from "../config/assay-config.js";
import { ModelFolderError } from "../errors/model-folder-error.js";
import { scaleTokenIds } from "../heads/scale.js";
import { folderFile } from "./folder-file.js";
import { readJsonPath } from "./read-assay-config.js";
import type { VerifierTokenizer } from "./tokenizer.js";

export interface CheckedHead {
  probe: Float32Array | null;
  scaleIds: number[] | null;
}

/** Validates the head of assay.json against the tokenizer and the graph. */
export async function checkHead(
  dir: string,
  config: AssayConfig,
  tokenizer: VerifierTokenizer,
  hiddenSize: number,
  logitsWidth: number | null,
): Promise<CheckedHead> {
  const file = join(dir, "assay.json");
  checkCriteria(file, config);
  const head = config.head;
  if (head.type === "probe") {
    const values =
      typeof head.probe === "string" ? await readProbeFile(dir, head.probe) : head.probe;
    if (values.length !== hiddenSize) {
      throw new ModelFolderError(
        file,
        `the probe has ${values.length} values but the model's hidden size is ${hiddenSize}`,
        "head.probe",
      );
    }
    return { probe: Float32Array.from(values), scaleIds: null };
  }
  const scale = scaleTokenIds(tokenizer, head.scale);
  if (!scale.ok) throw new ModelFolderError(file, scale.message, "head.scale");
  const widest = Math.max(...scale.ids);
  if (logitsWidth !== null && widest >= logitsWidth) {
    throw new ModelFolderError(
      file,
      `scale token id ${widest} is outside the model's logits (width ${logitsWidth})`,
      "head.scale",
    );
  }
  return { probe: null, scaleIds: scale.ids };
}

function checkCriteria(file: string, config: AssayConfig): void {
  const templates = [config.template, ...(config.variants ?? [])];
  templates.forEach((template, index) => {
    const hasSlot = template.some((p) => "slot" in p && p.slot === "criterion");
    const field = index === 0 ? "template" : `variants[${index - 1}]`;
    if (hasSlot && config.criteria === undefined) {
      throw new ModelFolderError(
        file,
        "uses a `criterion` slot but assay.json has no `criteria`",
        field,
      );
    }
    if (!hasSlot && (config.criteria?.length ?? 0) > 1) {
      throw new ModelFolderError(
        file,
        "has no `criterion` slot, so every criterion would get the same prompt",
        field,
      );
    }
  });
}

async function readProbeFile(dir: string, name: string): Promise<number[]> {
  const file = await folderFile(dir, name, "head.probe");
  const values = await readJsonPath(file);
  if (!Array.isArray(values) || !values.every((v) => typeof v === "number")) {
    throw new ModelFolderError(file, "must be a JSON array of numbers (the probe vector)");
  }
  return values;
}
