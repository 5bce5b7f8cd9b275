import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const HEAP_GROWTH = fileURLToPath(new URL("../src/heap-growth.ts", import.meta.url));

/**
 * A process that calls `limitHeapGrowth(options)` first, then churns through objects of
 * which many survive a young collection (as a worker's jobs wait for their batch); prints
 * the young generation's size in bytes at the end.
 */
function youngGenerationAfterChurn(options: string): number {
  const script = `
    import { getHeapSpaceStatistics } from "node:v8";
    const { limitHeapGrowth } = await import(${JSON.stringify(HEAP_GROWTH)});
    limitHeapGrowth(${options});
    let kept = [];
    for (let round = 0; round < 200; round++) {
      for (let i = 0; i < 20000; i++) kept.push({ i, text: "x" + i });
      if (kept.length > 100000) kept = kept.slice(50000);
    }
    const young = getHeapSpaceStatistics().find((space) => space.space_name === "new_space");
    console.log(young.space_size);
  `;
  const output = execFileSync(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "--eval", script],
    { encoding: "utf8" },
  );
  return Number(output.trim());
}

const MB = 1024 * 1024;

describe("limitHeapGrowth", () => {
  it("keeps the young generation at its start-up size by default", () => {
    expect(youngGenerationAfterChurn("")).toBeLessThanOrEqual(4 * MB);
  });

  it("lets the young generation grow with growYoungGeneration (the CPU worker's setting)", () => {
    expect(youngGenerationAfterChurn("{ growYoungGeneration: true }")).toBeGreaterThanOrEqual(
      16 * MB,
    );
  });
});
