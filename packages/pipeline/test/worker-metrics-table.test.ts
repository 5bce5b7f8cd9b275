import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { WorkerMetrics } from "../src/worker/worker-metrics.js";

/** The "What to monitor" table of infra/README.md: `name{label,label}` in its first column. */
function documentedMetrics(): Map<string, string[]> {
  const readme = readFileSync(new URL("../../../infra/README.md", import.meta.url), "utf8");
  const rows = readme.matchAll(/^\| `(assay_[a-z_]+)(?:\{([a-z_,]*)\})?`/gm);
  return new Map([...rows].map((row) => [row[1] as string, row[2]?.split(",") ?? []]));
}

/** The metrics a GPU worker registers (a CPU worker's and the verifier's), with their labels. */
function definedMetrics(): Map<string, string[]> {
  const verifier = () => ({ promptTokens: 0, computedTokens: 0, paddedTokens: 0, passes: 0 });
  const { registry } = new WorkerMetrics(async () => [], verifier);
  // prom-client keeps a metric's labels on it without typing them.
  return new Map(
    registry
      .getMetricsAsArray()
      .map((metric) => [metric.name, (metric as { labelNames?: string[] }).labelNames ?? []]),
  );
}

describe("infra/README.md's metrics table", () => {
  it("names every metric of the worker with its labels, and only metrics the worker defines", () => {
    const documented = documentedMetrics();
    const defined = definedMetrics();
    expect(documented.size).toBeGreaterThan(0);
    for (const [name, labels] of documented) expect(defined.get(name), name).toEqual(labels);
    // prom-client's process metrics (assay_worker_*) are standard; the README names one.
    const own = [...defined.keys()].filter((name) => !name.startsWith("assay_worker_"));
    expect(own.filter((name) => !documented.has(name))).toEqual([]);
  });
});
