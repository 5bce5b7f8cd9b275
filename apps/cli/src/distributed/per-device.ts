import { spawn } from "node:child_process";
import type { Logger } from "@assay/pipeline";
import { wholeNumberList } from "../options.js";

/**
 * `--devices 0,1,2,3`: one worker process per GPU, each started with the same arguments
 * plus `--device cuda:<id>`. Signals are passed on so every child drains; the parent exits
 * with the first non-zero child exit code, or 0.
 */
export async function runOnePerDevice(
  devices: number[],
  args: string[],
  log: Logger,
): Promise<number> {
  const children = devices.map((id) => {
    const child = spawn(
      process.execPath,
      [...process.execArgv, process.argv[1] ?? "", ...args, "--device", `cuda:${id}`],
      {
        stdio: "inherit",
      },
    );
    log.info({ device: `cuda:${id}`, pid: child.pid }, "started worker");
    return child;
  });
  const forward = (signal: NodeJS.Signals): void => {
    for (const child of children) child.kill(signal);
  };
  process.on("SIGTERM", forward);
  process.on("SIGINT", forward);
  try {
    const codes = await Promise.all(
      children.map(
        (child) =>
          new Promise<number>((resolve) => {
            child.on("exit", (code, signal) => resolve(code ?? (signal === null ? 1 : 128)));
          }),
      ),
    );
    return codes.find((code) => code !== 0) ?? 0;
  } finally {
    process.off("SIGTERM", forward);
    process.off("SIGINT", forward);
  }
}

/** Commander parser for `--devices 0,1,2`: device ids, each GPU once. */
export const parseDeviceList = wholeNumberList("--devices", {
  min: 0,
  items: "GPU ids",
  example: "0,1,2",
  distinct: true,
});

/** The worker's own arguments without `--devices <list>`, for the children. */
export function argsWithoutDevices(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === "--devices") i += 1;
    else if (!arg.startsWith("--devices=")) out.push(arg);
  }
  return out;
}

/** The arguments of the worker for device `id`, the `index`-th of the list. */
export function childArgsFor(args: string[], id: number, index: number): string[] {
  return [...withMetricsPortOffset(args, index), "--device", `cuda:${id}`];
}

function withMetricsPortOffset(args: string[], offset: number): string[] {
  return args.map((arg, i) => {
    const port = args[i - 1] === "--metrics-port" ? Number(arg) : Number.NaN;
    return Number.isInteger(port) && port > 0 ? String(port + offset) : arg;
  });
}
