import { ModelFolderError } from "../errors/model-folder-error.js";
import type { SessionInfo } from "./worker-session.js";

/** The graph inputs the verifier feeds, found at load. */
export interface ModelIo {
  hasPositionIds: boolean;
  hasTokenTypeIds: boolean;
}

const KNOWN_INPUTS = new Set(["input_ids", "attention_mask", "position_ids", "token_type_ids"]);

export function checkInputs(session: SessionInfo, file: string): ModelIo {
  for (const required of ["input_ids", "attention_mask"]) {
    if (!session.inputNames.includes(required)) {
      throw new ModelFolderError(
        file,
        `the graph has no \`${required}\` input (inputs: ${session.inputNames.join(", ")})`,
      );
    }
  }
  const unknown = session.inputNames.filter((name) => !KNOWN_INPUTS.has(name));
  if (unknown.length > 0) {
    throw new ModelFolderError(
      file,
      `unexpected graph inputs ${unknown.join(", ")}; export the model without past key values (e.g. optimum-cli --task text-generation, not text-generation-with-past)`,
    );
  }
  return {
    hasPositionIds: session.inputNames.includes("position_ids"),
    hasTokenTypeIds: session.inputNames.includes("token_type_ids"),
  };
}

/**
 * Checks that `name` is a float32 output shaped [batch, sequence, width] and returns its
 * width when the graph states it (null when symbolic).
 */
export function checkOutput(session: SessionInfo, file: string, name: string): number | null {
  const meta = session.outputMetadata.find((m) => m.name === name);
  if (meta === undefined) {
    throw new ModelFolderError(
      file,
      `the graph has no \`${name}\` output (outputs: ${session.outputNames.join(", ")})`,
    );
  }
  if (!meta.isTensor) throw new ModelFolderError(file, `output \`${name}\` is not a tensor`);
  if (meta.type !== "float32") {
    throw new ModelFolderError(file, `output \`${name}\` must be float32, got ${meta.type}`);
  }
  if (meta.shape.length !== 3) {
    throw new ModelFolderError(
      file,
      `output \`${name}\` must have shape [batch, sequence, width], got [${meta.shape.join(", ")}]`,
    );
  }
  const width = meta.shape[2];
  return typeof width === "number" ? width : null;
}
