import { realpathSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { type RunSpec, type ScorerRef, SpecError } from "@assay/core";
import { queueNameFor } from "@assay/queue/queue-names";
import type { ScorerRegistry } from "@assay/scorers";
import type { ModelQueue } from "@assay/store";

/** `owner/name` or `owner/name@revision`: what the verifier loader takes for a hub id. */
const HUB_ID = /^[\w.-]+\/[\w.-]+(?:@[^\s@]+)?$/;

/**
 * The GPU queues a spec's scorers send jobs to, each with the model as a worker must be
 * given it (`--model`) from any folder: a folder's real absolute path, or a hub id. A model
 * written as a relative path that is no folder here is refused (SpecError naming the spec,
 * the scorer and the fix): its queue would be named after a folder that exists only
 * relative to where the producer happened to run, and no worker would ever serve it.
 */
export function modelQueuesOf(spec: RunSpec, registry: ScorerRegistry, file: string): ModelQueue[] {
  const queues = new Map<string, ModelQueue>();
  for (const { ref, where } of gpuScorersOf(spec, registry)) {
    const model = ref.args?.model;
    if (typeof model !== "string" || model === "") continue;
    const queue = queueNameFor("gpu", model);
    if (!queues.has(queue)) queues.set(queue, { queue, model: workerModel(model, file, where) });
  }
  return [...queues.values()];
}

function workerModel(model: string, file: string, where: string): string {
  const path = resolve(model);
  if (isDirectory(path)) return realpathSync(path);
  if (isAbsolute(model) || (HUB_ID.test(model) && !model.startsWith("."))) return model;
  throw new SpecError(
    file,
    where,
    `its model "${model}" is a relative path, and ${path} is no folder here: the jobs would ` +
      "wait in a queue named after a folder no GPU worker has. Run `assay produce` from the " +
      "folder the path is relative to, or write the model as an absolute path (the folder " +
      "where the GPU workers have it) or a hub id (owner/name)",
  );
}

function gpuScorersOf(
  spec: RunSpec,
  registry: ScorerRegistry,
): { ref: ScorerRef; where: string }[] {
  const listed = (refs: readonly ScorerRef[], owner: string) =>
    refs.map((ref, index) => ({ ref, where: `${owner} scorer #${index + 1} (${ref.name})` }));
  const all = [
    ...spec.rules.flatMap((rule) => listed(rule.scorers, `rule "${rule.name}"`)),
    ...(spec.default === undefined ? [] : listed(spec.default.scorers, "default")),
    ...(spec.selection?.judge === undefined
      ? []
      : [{ ref: spec.selection.judge, where: `selection judge (${spec.selection.judge.name})` }]),
  ];
  return all.filter(({ ref }) => registry.get(ref.name)?.pool === "gpu");
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
