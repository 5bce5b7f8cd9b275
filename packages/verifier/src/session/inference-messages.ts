import type { InferenceSession } from "onnxruntime-node";
import type { PastLayout } from "./past-layout.js";

/**
 * What the main thread (worker-session.ts) and the inference thread (inference-worker.ts)
 * say to each other. Both sides import these types, so a field added on one side fails to
 * compile where the other side must handle it.
 */

/** The inference thread's `workerData`. */
export type InferenceThreadData = {
  modelPath: string;
  sessionOptions: InferenceSession.SessionOptions;
};

/** Graph inputs/outputs as reported by the session (plain data, copied from the thread). */
export interface SessionInfo {
  inputNames: readonly string[];
  outputNames: readonly string[];
  inputMetadata: readonly TensorMetadata[];
  outputMetadata: readonly TensorMetadata[];
}

export interface TensorMetadata {
  name: string;
  isTensor: boolean;
  type?: string;
  shape: readonly (number | string)[];
}

export interface Int64Feed {
  data: BigInt64Array;
  dims: number[];
}

/** One forward pass of a prefix tree: rows are tree nodes, their past their parents' caches. */
export interface TreePass {
  feeds: Record<string, Int64Feed>;
  nodes: number[];
  /** Per row: the parent node (−1: no past), its cache length, this node's own tokens. */
  parents: number[];
  pastLengths: number[];
  newLengths: number[];
  /** Per row: children still to run on this node's cache (0: not kept). */
  children: number[];
  /** The widest past of the pass: every row's past is padded to it. */
  pastWidth: number;
  /** [row, offset in the row's new tokens, request index]. */
  reads: [number, number, number][];
}

/** The passes of a prefix tree, run back to back in the inference thread. */
export interface TreeMessage {
  output: string;
  past: PastLayout;
  passes: TreePass[];
  requests: number;
}

/** One forward pass over padded rows; `output` is read at `positions[row]` of each row. */
export interface RowsMessage {
  feeds: Record<string, Int64Feed>;
  output: string;
  positions: number[];
  /** The cache layout of a with-past graph, fed an empty past; null for other graphs. */
  emptyPast: PastLayout | null;
}

/** A forward pass the main thread asks for, before it is numbered. */
export type InferenceCall = ({ type: "run" } & RowsMessage) | ({ type: "tree" } & TreeMessage);

/** Main thread → inference thread; `id` pairs a call with its result. */
export type InferenceRequest = (InferenceCall & { id: number }) | { type: "release" };

/** Inference thread → main thread. */
export type InferenceReply =
  | ({ type: "ready" } & SessionInfo)
  /** The session could not be created; the thread takes no requests. */
  | { type: "error"; message: string }
  | ResultReply
  | { type: "released" };

/** The answer to one run or tree request: `width` floats per request, or an error. */
export type ResultReply =
  | {
      type: "result";
      id: number;
      width: number;
      /** Bytes of the whole output tensors onnxruntime returned. */
      bytes: number;
      data: Float32Array;
    }
  | { type: "result"; id: number; error: string };
