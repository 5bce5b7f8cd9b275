import { ModelFolderError } from "../errors/model-folder-error.js";
import { PREPARED } from "../graph/prepared-names.js";
import type { SessionInfo } from "./inference-messages.js";
import {
  type DeclaredAttention,
  isPastInput,
  type PastLayout,
  readPastLayout,
} from "./past-layout.js";

/** The graph inputs the verifier feeds, found at load. */
export interface ModelIo {
  hasPositionIds: boolean;
  hasTokenTypeIds: boolean;
  /** A prepared graph: it takes `score_position` and returns [batch, width] outputs. */
  prepared: boolean;
  /** It takes `score_token_ids` (prepared for a distribution head). */
  hasScoreTokenIds: boolean;
  /** The key/value cache of a with-past export; null when the graph has none. */
  past: PastLayout | null;
}

const KNOWN_INPUTS = new Set([
  "input_ids",
  "attention_mask",
  "position_ids",
  "token_type_ids",
  PREPARED.position,
  PREPARED.tokenIds,
]);

export function checkInputs(
  session: SessionInfo,
  file: string,
  declared: DeclaredAttention = { kvHeads: null, headDim: null },
): ModelIo {
  for (const required of ["input_ids", "attention_mask"]) {
    if (!session.inputNames.includes(required)) {
      throw new ModelFolderError(
        file,
        `the graph has no \`${required}\` input (inputs: ${session.inputNames.join(", ")})`,
      );
    }
  }
  const unknown = session.inputNames.filter(
    (name) => !KNOWN_INPUTS.has(name) && !isPastInput(name),
  );
  if (unknown.length > 0) {
    throw new ModelFolderError(
      file,
      `unexpected graph inputs ${unknown.join(", ")}; export the model with optimum-cli --task text-generation or text-generation-with-past (one model.onnx, not a merged decoder)`,
    );
  }
  const prepared = session.inputNames.includes(PREPARED.position);
  const past = readPastLayout(session, file, declared);
  if (!prepared && session.inputNames.includes(PREPARED.tokenIds)) {
    throw new ModelFolderError(
      file,
      `the graph takes \`${PREPARED.tokenIds}\` but not \`${PREPARED.position}\`; prepare the original export again with assay model prepare`,
    );
  }
  return {
    hasPositionIds: session.inputNames.includes("position_ids"),
    hasTokenTypeIds: session.inputNames.includes("token_type_ids"),
    prepared,
    hasScoreTokenIds: session.inputNames.includes(PREPARED.tokenIds),
    past,
  };
}

/**
 * Checks that `name` is a float32 output shaped [batch, sequence, width] (a prepared graph:
 * [batch, width]) and returns its width when the graph states it (null when symbolic).
 */
export function checkOutput(
  session: SessionInfo,
  file: string,
  name: string,
  prepared = false,
): number | null {
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
  const expected = prepared ? "[batch, width]" : "[batch, sequence, width]";
  if (meta.shape.length !== (prepared ? 2 : 3)) {
    throw new ModelFolderError(
      file,
      `output \`${name}\` must have shape ${expected}, got [${meta.shape.join(", ")}]`,
    );
  }
  const width = meta.shape.at(-1);
  return typeof width === "number" ? width : null;
}
