import type { InferenceSession } from "onnxruntime-node";
import { ModelFolderError } from "../errors/model-folder-error.js";
import { WorkerSession } from "./worker-session.js";

export interface SessionOptions {
  /** `cpu` (default) or `cuda:<id>`. */
  device?: string;
  /** Intra-op threads; default: onnxruntime's choice (one per physical core). */
  threads?: number;
  /**
   * onnxruntime's CPU memory arena. Default true. The arena keeps a batch's peak activations
   * resident (and rounds them up) but saves re-faulting fresh pages on every batch: false
   * cut peak RSS at 16 × 2,048 tokens on the tiny decoder from 2.1 to 1.5 GB and cost ~45 %
   * of samples/s there. See "Memory" in packages/verifier/README.md.
   */
  memoryArena?: boolean;
}

export type ExecutionDevice = { provider: "cpu" } | { provider: "cuda"; deviceId: number };

export function parseDevice(device = "cpu"): ExecutionDevice {
  if (device === "cpu") return { provider: "cpu" };
  const match = /^cuda(?::(\d+))?$/.exec(device);
  if (match === null) {
    throw new RangeError(`Expected \`device\` to be "cpu" or "cuda:<id>", got \`${device}\``);
  }
  return { provider: "cuda", deviceId: Number(match[1] ?? 0) };
}

/** onnxruntime session options for a device and thread count. */
export function sessionOptionsFor(options: SessionOptions = {}): InferenceSession.SessionOptions {
  const device = parseDevice(options.device);
  return {
    executionProviders:
      device.provider === "cpu" ? ["cpu"] : [{ name: "cuda", deviceId: device.deviceId }],
    graphOptimizationLevel: "all",
    executionMode: "sequential",
    interOpNumThreads: 1,
    enableCpuMemArena: options.memoryArena ?? true,
    // Off: the memory pattern keeps one activation plan per input shape, so batches of
    // varying lengths grew the process by a batch's activations per new shape (3.7 GB after
    // three 16 × 2,048 batches instead of 2.1 GB), at no measurable speed gain.
    enableMemPattern: false,
    ...(options.threads !== undefined && { intraOpNumThreads: options.threads }),
  };
}

/** Opens `modelPath` in an inference thread (see inference-worker.ts for why). */
export async function createSession(
  modelPath: string,
  options: SessionOptions = {},
): Promise<WorkerSession> {
  const device = parseDevice(options.device);
  try {
    return await WorkerSession.create(modelPath, sessionOptionsFor(options));
  } catch (error) {
    const message = (error as Error).message;
    const hint =
      device.provider === "cuda"
        ? " (is onnxruntime-node's CUDA provider installed? See packages/verifier/README.md)"
        : "";
    throw new ModelFolderError(modelPath, `onnxruntime cannot load the model: ${message}${hint}`);
  }
}
