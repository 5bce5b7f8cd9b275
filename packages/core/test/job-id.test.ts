import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jobIdOf, jobResultKey } from "../src/index.js";

describe("jobIdOf", () => {
  // Queued jobs keep their ids across upgrades: a changed id would enqueue a job twice.
  it("keeps the ids of jobs already in Redis", () => {
    const key = jobResultKey("nightly-1", "s1#2", "verifier:probe");
    expect(jobIdOf(key)).toBe("63cd51b16a9be7a15e131fee2832b54d9a1da080");
    expect(jobIdOf({ ...key, criterion: "clarity", repetition: 2 })).toBe(
      "00e009287ef0fcb681a993a428dce8a30ae8b037",
    );
  });

  it("is the first 40 hex digits of the key's SHA-256, for any key", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), fc.nat(), (runId, sample, scorer, rep) => {
        const key = { runId, sampleId: sample, scorer, criterion: "", repetition: rep };
        const parts = [runId, sample, scorer, "", String(rep)].join("\u0000");
        const digest = createHash("sha256").update(parts).digest("hex").slice(0, 40);
        expect(jobIdOf(key)).toBe(digest);
      }),
    );
  });
});
