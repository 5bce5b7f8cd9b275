import { CommanderError } from "@commander-js/extra-typings";
import { describe, expect, it } from "vitest";
import { parseAssay } from "./support/cli-parse.js";
import { assayArgsOf } from "./support/entry-points.js";
import { allInvocations } from "./support/invocations.js";

// Every process that infra/ starts through an Assay entry point must be a command the CLI
// accepts: a misspelled or removed option in a manifest would otherwise only show up as a
// crash loop in production.
const invocations = allInvocations()
  .map((invocation) => ({ ...invocation, assay: assayArgsOf(invocation.argv) }))
  .filter((invocation) => invocation.assay !== undefined);

describe("the commands written in infra/", () => {
  it("cover every place that starts Assay", () => {
    const sources = invocations.map((invocation) => invocation.source).join("\n");
    for (const expected of [
      "infra/Dockerfile CMD",
      "infra/gpu.Dockerfile CMD",
      "service migrate",
      "service assay",
      "service producer",
      "service worker-cpu",
      "service worker-gpu",
      "service worker-gpu-1",
      "Job/assay-migrate",
      "Deployment/worker-cpu",
      "Deployment/worker-gpu",
      "Job/assay-produce-nightly",
      "infra/README.md: assay worker",
      "infra/README.md: docker compose",
    ]) {
      expect(sources).toContain(expected);
    }
  });

  it.each(invocations.map((invocation) => [invocation.source, invocation] as const))(
    "%s parses with the CLI's own program",
    async (_source, invocation) => {
      await expect(parseAssay(invocation.assay as string[])).resolves.toBeDefined();
    },
  );

  it("GPU workers name their model and a CUDA device; the default `verifier` would be a hub id", async () => {
    const gpuWorkers = invocations.filter(
      (invocation) =>
        invocation.argv.includes("apps/worker-gpu/dist/main.js") &&
        !invocation.argv.includes("--help"),
    );
    expect(gpuWorkers.length).toBeGreaterThanOrEqual(3);
    for (const invocation of gpuWorkers) {
      const parsed = await parseAssay(invocation.assay as string[]);
      expect(parsed.options, invocation.source).toMatchObject({ pool: "gpu", device: "cuda:0" });
      expect(parsed.options.model, invocation.source).toMatch(/^\/models\/[^/]+$/);
    }
  });
});

describe("parseAssay", () => {
  it("refuses what the CLI refuses, without running anything", async () => {
    const refusals: [string[], string][] = [
      [["worker", "--pool", "cpu", "--metric-port", "9464"], "commander.unknownOption"],
      [["worker", "--concurrency", "8"], "commander.missingMandatoryOptionValue"],
      [["worker", "--pool", "gpu", "--device", "gpu0"], "commander.invalidArgument"],
      [["worker", "--pool", "cpu", "--metrics-port", "70000"], "commander.invalidArgument"],
      [["produce"], "commander.missingArgument"],
    ];
    for (const [argv, code] of refusals) {
      const error = await parseAssay(argv).catch((caught: unknown) => caught);
      expect(error, argv.join(" ")).toBeInstanceOf(CommanderError);
      expect((error as CommanderError).code, argv.join(" ")).toBe(code);
    }
    // A worker that would really start would block here on Redis and Postgres.
    await expect(
      parseAssay(["worker", "--pool", "cpu", "--redis", "redis://0.0.0.0:1"]),
    ).resolves.toMatchObject({ command: "worker", options: { pool: "cpu" } });
  });
});
