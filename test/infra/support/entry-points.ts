import { cliArgs as producerArgs } from "@assay/producer/cli-args";
import { cliArgs as workerCpuArgs } from "@assay/worker-cpu/cli-args";
import { cliArgs as workerGpuArgs } from "@assay/worker-gpu/cli-args";

/** What each deployable script passes to the CLI, from the entry points' own code. */
const ENTRY_POINTS: Record<string, (args: readonly string[]) => string[]> = {
  "apps/cli/dist/main.js": (args) => [...args],
  "apps/producer/dist/main.js": producerArgs,
  "apps/worker-cpu/dist/main.js": workerCpuArgs,
  "apps/worker-gpu/dist/main.js": workerGpuArgs,
};

/**
 * The `assay` arguments of a process started as `argv` (`node <entry point> ...` or
 * `assay ...`), or undefined when it starts something else (redis-server, sleep).
 */
export function assayArgsOf(argv: readonly string[]): string[] | undefined {
  const [program, script, ...rest] = argv;
  if (program === "assay") return argv.slice(1);
  if (program !== "node" || script === undefined) return undefined;
  const entry = ENTRY_POINTS[script.replace(/^\.\//, "")];
  if (entry === undefined) throw new Error(`"${argv.join(" ")}" runs an unknown script ${script}`);
  return entry(rest);
}
