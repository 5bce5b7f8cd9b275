import type { InferenceSession } from "onnxruntime-node";
import { ModelFolderError } from "../errors/model-folder-error.js";
import { WorkerSession } from "./worker-session.js";

export interface SessionOptions {
  /** `cpu` (default) or `cuda:<id>`. */
  device?: string;
  /** Intra-op threads; default: onnxruntime's choice (one per physical core). */
  threads?: number;
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
    interOpNumThreads: 1,
    ...(options.threads !== undefined && { intraOpNumThreads: options.threads }),
  };
}

/** Opens `modelPath` in an inference thread (see worker-source.ts for why). */
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
