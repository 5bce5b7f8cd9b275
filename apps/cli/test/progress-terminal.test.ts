import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";
import { barFrames, runInTerminal } from "./in-terminal.js";

const work = mkdtempSync(join(tmpdir(), "assay-progress-tty-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const SAMPLES = 20_000;
const PLANNED = 2 * SAMPLES; // exact and f1 per sample

function writeDataset(name: string): void {
  const lines = Array.from({ length: SAMPLES }, (_, i) =>
    JSON.stringify({ id: `s${i}`, question: "q", answer: `a${i}`, target: [`a${i}`] }),
  );
  writeFileSync(join(work, name), `${lines.join("\n")}\n`);
}

/** Percentages of the "reading dataset" frames, in the order drawn. */
function readingPercents(frames: string[]): number[] {
  return frames
    .map((frame) => /^reading dataset \|[█░]+\| (\d+)% \(/.exec(frame)?.[1])
    .filter((percent) => percent !== undefined)
    .map(Number);
}

/** `[done, planned]` of the frames drawn once the plan is known. */
function resultFrames(frames: string[]): [number, number][] {
  return frames
    .map((frame) => /^scor(?:ed|ing) \|[█░]+\| (\d+)\/(\d+) results/.exec(frame))
    .filter((match) => match !== null)
    .map((match) => [Number(match[1]), Number(match[2])]);
}

/** The last line of a finished run; the mean is "–" when this run scored nothing. */
function finalLine(mean: string): RegExp {
  return new RegExp(
    `\\r\\ndone: ${PLANNED}/${PLANNED} results stored: ${PLANNED} scored, 0 unscored, ` +
      `0 input errors; \\d+s elapsed, mean ${mean} results/s\\r\\n`,
  );
}

beforeAll(() => {
  writeDataset("whole.jsonl");
  writeDataset("stopped.jsonl");
});

describe("assay run's progress on a terminal", () => {
  it("fills the bar by the share of the dataset read, then by results of the plan, and ends with the final counts", async () => {
    const run = await runInTerminal(["run", "whole.jsonl", "--run-id", "whole", "--db", "store"], {
      cwd: work,
    });
    expect(run.code, run.screen).toBe(ExitCode.ok);
    const frames = barFrames(run.screen);
    // Drawn at once, before the first result: never a blank screen while work starts.
    expect(frames[0]).toMatch(/^reading dataset \|░+\| 0% \(0 B of 1\.\d+ MB\): 0 results stored/);
    const percents = readingPercents(frames);
    expect(
      percents.some((percent) => percent > 0 && percent < 100),
      frames.join("\n"),
    ).toBe(true);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expect(resultFrames(frames).at(-1)).toEqual([PLANNED, PLANNED]);
    expect(run.screen).toMatch(finalLine("\\d+"));
  });

  it("shows a rerun of a finished run as done, not as nothing of nothing", async () => {
    const run = await runInTerminal(["run", "whole.jsonl", "--run-id", "whole", "--db", "store"], {
      cwd: work,
    });
    expect(run.code, run.screen).toBe(ExitCode.ok);
    const results = resultFrames(barFrames(run.screen));
    expect(results.length).toBeGreaterThan(0);
    for (const [, planned] of results) expect(planned).toBe(PLANNED);
    expect(results.at(-1)).toEqual([PLANNED, PLANNED]);
    expect(run.screen).toMatch(finalLine("–"));
  });

  it("prints Ctrl-C's message below the bar, and a resumed run counts what the first stored", async () => {
    let typed = false;
    const stopped = await runInTerminal(
      ["run", "stopped.jsonl", "--run-id", "stopped", "--db", "store", "--concurrency", "20"],
      {
        cwd: work,
        onScreen: (screen, type) => {
          // Once some result is stored, so the interrupt lands mid-run.
          if (typed || !/(?<![\d/])[1-9]\d*(\/\d+)? results/.test(screen)) return;
          typed = true;
          type("\x03");
        },
      },
    );
    expect(typed, stopped.screen).toBe(true);
    expect(stopped.code, stopped.screen).toBe(ExitCode.ok);
    // On a line of its own: the bar was ended with a newline before it.
    expect(stopped.screen).toContain("\r\nStopping: storing what is scored...\r\n");
    const kept = /\r\nInterrupted: (\d+) results are stored/.exec(stopped.screen);
    expect(kept, stopped.screen).not.toBeNull();
    const storedFirst = Number(kept?.[1]);
    expect(stopped.screen).toMatch(
      new RegExp(
        `\\r\\nstopped: ${storedFirst} results stored \\(the dataset was not read to its end\\)`,
      ),
    );

    const resumed = await runInTerminal(
      ["run", "stopped.jsonl", "--run-id", "stopped", "--db", "store"],
      { cwd: work },
    );
    expect(resumed.code, resumed.screen).toBe(ExitCode.ok);
    // The rerun scores exactly what the first left: nothing twice, nothing missing.
    expect(resumed.screen).toContain(
      `Skipped ${storedFirst} results already stored by an earlier attempt.`,
    );
    const results = resultFrames(barFrames(resumed.screen));
    expect(results.length).toBeGreaterThan(0);
    for (const [done, planned] of results) {
      expect(planned).toBe(PLANNED);
      expect(done).toBeGreaterThanOrEqual(storedFirst);
    }
    expect(results.at(-1)).toEqual([PLANNED, PLANNED]);
    expect(resumed.screen).toMatch(finalLine("\\d+"));
  });
});
