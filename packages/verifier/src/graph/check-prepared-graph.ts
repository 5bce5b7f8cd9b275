import type { AssayConfig } from "../config/assay-config.js";
import { ModelFolderError } from "../errors/model-folder-error.js";
import type { SessionInfo } from "../session/inference-messages.js";
import type { ModelIo } from "../session/model-io.js";
import { PREPARED } from "./prepared-names.js";

/**
 * assay.json and the graph must agree on whether the graph is prepared, and a prepared
 * graph must return the head's output and take what the head feeds it.
 */
export function checkPreparedGraph(
  session: SessionInfo,
  io: ModelIo,
  config: AssayConfig,
  files: { onnx: string; assay: string },
): void {
  if (config.graph === "prepared" && !io.prepared) {
    throw new ModelFolderError(
      files.assay,
      `says the graph is prepared, but ${files.onnx} has no \`${PREPARED.position}\` input; use the folder written by \`assay model prepare\`, or remove "graph"`,
      "graph",
    );
  }
  if (!io.prepared) return;
  if (config.graph !== "prepared") {
    throw new ModelFolderError(
      files.assay,
      `the graph takes \`${PREPARED.position}\` (prepared by \`assay model prepare\`) but assay.json does not say "graph": "prepared"`,
      "graph",
    );
  }
  const { type, output } = config.head;
  if (!session.outputNames.includes(output)) {
    throw new ModelFolderError(
      files.onnx,
      `the prepared graph has no \`${output}\` output (outputs: ${session.outputNames.join(", ")}), which the ${type} head reads; prepare the original export again with --heads ${type}`,
    );
  }
  if (type === "distribution" && !io.hasScoreTokenIds) {
    throw new ModelFolderError(
      files.onnx,
      `a graph prepared for a distribution head takes \`${PREPARED.tokenIds}\` (the scale's token ids); this one does not. Prepare the original export again with --heads distribution`,
    );
  }
}
