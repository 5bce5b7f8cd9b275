import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeTinyModel } from "@assay/model-tools";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { LocalHub } from "@assay/test-support/local-hub";
import { MODEL_FILES } from "@assay/verifier";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// `assay run` with a spec naming a hub id, the Hub being a local server that HF_ENDPOINT
// points at: the scores it stores name the commit the model was downloaded at.
const work = mkdtempSync(join(tmpdir(), "assay-verifier-hub-"));
const dataset = join(work, "data.jsonl");
const spec = join(work, "spec.yaml");
let hub: LocalHub;
let sha: string;

beforeAll(async () => {
  hub = await LocalHub.start();
  const model = await makeTinyModel(join(work, "tiny"), { kind: "decoder" });
  sha = await hub.publish("acme/tiny-verifier", model, [...MODEL_FILES]);
  writeFileSync(dataset, `${JSON.stringify({ id: "a", question: "Why?", answer: "So." })}\n`);
  writeFileSync(
    spec,
    "default:\n  scorers:\n    - { name: verifier, args: { model: acme/tiny-verifier } }\n",
  );
});
afterAll(async () => {
  await hub.close();
  rmSync(work, { recursive: true, force: true });
});

describe("assay run with a hub-id verifier", () => {
  it("downloads from HF_ENDPOINT and stores the commit sha with each score", async () => {
    const env = { HF_ENDPOINT: hub.url, ASSAY_MODEL_CACHE: join(work, "cache") };
    const store = join(work, "store");
    const run = await assayInProcess(
      ["run", dataset, "--spec", spec, "--db", store, "--run-id", "hub", "--json"],
      { cwd: work, env },
    );
    expect(run.code, run.stderr).toBe(ExitCode.ok);
    expect(JSON.parse(run.stdout).results).toBe(1);
    // Not a terminal: no download bars in the log.
    expect(run.stderr).not.toContain("downloading");
    const exported = await assayInProcess(["export", "hub", "--db", store], { cwd: work, env });
    expect(exported.code, exported.stderr).toBe(ExitCode.ok);
    const rows = exported.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { detail: unknown });
    expect(rows).toHaveLength(1);
    for (const row of rows) {
      const detail = typeof row.detail === "string" ? JSON.parse(row.detail) : row.detail;
      expect(detail.revision).toBe(sha);
      expect(detail.usage.model).toBe("acme/tiny-verifier");
    }
  });
});
