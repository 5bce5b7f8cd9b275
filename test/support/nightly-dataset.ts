import { writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Writes `night-<night>.jsonl` into `dir`: `tasks` capital-city tasks with two candidates
 * each, the first right on two nights in three (which tasks shifts with the night), so
 * consecutive runs of a nightly series differ in their figures. Returns the file's path.
 */
export function writeNightlyDataset(dir: string, night: number, tasks: number): string {
  const lines: string[] = [];
  for (let task = 0; task < tasks; task++) {
    const right = (task + night) % 3 !== 0;
    lines.push(
      JSON.stringify({
        id: `t${task}`,
        question: `capital of country ${task}?`,
        target: `city ${task}`,
        candidates: [
          { answer: right ? `city ${task}` : "no idea", label: right },
          { answer: `city ${task + 1}`, label: false },
        ],
      }),
    );
  }
  const file = join(dir, `night-${night}.jsonl`);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

/**
 * `assay run` of one night of a nightly series: its dataset written into `dir`, the spec
 * file `spec` (relative to the command's folder), run id `night-<night>`, no progress.
 */
export function nightlyRunArgs(
  dir: string,
  night: number,
  tasks: number,
  spec = "spec.yaml",
): string[] {
  const dataset = writeNightlyDataset(dir, night, tasks);
  return ["run", dataset, "--spec", spec, "--run-id", `night-${night}`, "--quiet"];
}
