import { describe, expect, it } from "vitest";
import { type RunStatus, renderRunStatus } from "../src/distributed/run-status.js";

function queue(name: string, waiting: number) {
  return {
    counts: { queue: name, waiting, active: 2, delayed: 0, failed: 1 },
    health: {
      queue: name,
      workers: ["host:1:a"],
      workersKnown: true,
      orphaned: { jobs: 0, workers: [], locksExpireInMs: null },
      runJobsWithoutWorker: 0,
      strayModel: null,
      model: null,
      corrupt: [],
    },
  };
}

describe("assay status's queue table", () => {
  it("keeps every count under its heading when a model's queue carries a long path", () => {
    const queues = [
      queue("cpu", 12),
      queue("gpu-_srv_assay_models_qwen3-0.6b-verifier_onnx_fp16", 345678),
    ];
    const status: RunStatus = {
      runId: "night",
      planned: 100,
      done: 40,
      unscored: 0,
      errors: 0,
      inputErrors: 0,
      finished: false,
      finishedAt: null,
      abandonedAt: null,
      queues: queues.map((q) => q.counts),
      queueHealth: queues.map((q) => q.health),
      redisEvictionPolicy: "noeviction",
      perSecond: 1,
      etaSeconds: 60,
      producer: null,
      modelQueues: [],
    };
    const lines = renderRunStatus(status, { queuePrefix: "assay" }).split("\n");
    const header = lines.find((line) => line.startsWith("queues"));
    if (!header) throw new Error("no queue table");
    const rows = lines.filter((line) => line.startsWith("  cpu") || line.startsWith("  gpu-"));
    expect(rows).toHaveLength(2);
    // Each column's last character lines up with its heading's.
    for (const heading of ["waiting", "active", "delayed", "failed", "workers"]) {
      const end = header.indexOf(heading) + heading.length;
      for (const row of rows) {
        expect(row[end - 1], `${heading} in ${row}`).toMatch(/\d/);
        expect(row[end] ?? " ", `${heading} in ${row}`).toBe(" ");
      }
    }
  });
});
