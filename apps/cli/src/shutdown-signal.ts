import { ExitCode } from "./exit-codes.js";

/**
 * An AbortSignal aborted by the first SIGTERM or SIGINT, so a long-running command can stop
 * taking work and drain. A second signal exits at once, for an operator who cannot wait.
 */
export function shutdownSignal(onSignal?: (name: NodeJS.Signals) => void): {
  signal: AbortSignal;
  dispose(): void;
} {
  const controller = new AbortController();
  const handle = (name: NodeJS.Signals): void => {
    if (controller.signal.aborted) process.exit(ExitCode.interrupted);
    onSignal?.(name);
    controller.abort();
  };
  process.on("SIGTERM", handle);
  process.on("SIGINT", handle);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off("SIGTERM", handle);
      process.off("SIGINT", handle);
    },
  };
}
