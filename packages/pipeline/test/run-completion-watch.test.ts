import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { RunCompletion } from "../src/run/complete-run.js";
import { RunCompletionWatch } from "../src/worker/run-completion-watch.js";

const incomplete: RunCompletion = { state: "incomplete", planned: 10, stored: 9 };

/** A watch whose completer records each run it is asked about and answers `answer`. */
function watch(answer: () => Promise<RunCompletion> = async () => incomplete) {
  const asked: string[] = [];
  const completed: string[] = [];
  const watcher = new RunCompletionWatch({
    complete: (runId) => {
      asked.push(runId);
      return answer();
    },
    onCompleted: (runId) => completed.push(runId),
    onError: () => {},
    idleMs: 20,
    busyMs: 150,
  });
  return { watcher, asked, completed };
}

describe("a worker's watch for runs it may complete", () => {
  it("looks once it is idle, at the runs it stored results for since it last looked", async () => {
    const { watcher, asked } = watch();
    watcher.jobStarted();
    watcher.jobStarted();
    watcher.jobEnded("a");
    watcher.jobEnded(); // failed: stored nothing
    await sleep(100);
    expect(asked).toEqual(["a"]);
    // Nothing stored since: an idle worker does not look again.
    await sleep(250);
    expect(asked).toEqual(["a"]);
    await watcher.stop();
  });

  it("looks every so often while it stays busy, and says which runs it completed", async () => {
    const { watcher, asked, completed } = watch(async () => ({
      state: "completed",
      here: true,
      selection: undefined,
    }));
    watcher.jobStarted(); // never ends: the worker is never idle
    watcher.jobStarted();
    watcher.jobEnded("b");
    await sleep(60);
    expect(asked).toEqual([]);
    await sleep(200);
    expect(asked).toEqual(["b"]);
    expect(completed).toEqual(["b"]);
    await watcher.stop();
  });

  it("looks once more when stopped right after a result, before its idle look", async () => {
    const done = { state: "completed", here: true, selection: undefined } as RunCompletion;
    const { watcher, asked, completed } = watch(async () => done);
    watcher.jobStarted();
    watcher.jobEnded("d");
    expect(asked).toEqual([]);
    await watcher.stop();
    expect(asked).toEqual(["d"]);
    expect(completed).toEqual(["d"]);
  });

  it("lets a completion in progress end before it stops", async () => {
    let finish = (): void => {};
    const { watcher, asked } = watch(
      () =>
        new Promise((resolve) => {
          finish = () => resolve(incomplete);
        }),
    );
    watcher.jobStarted();
    watcher.jobEnded("c");
    await sleep(60);
    expect(asked).toEqual(["c"]);
    let stopped = false;
    const stopping = watcher.stop().then(() => {
      stopped = true;
    });
    await sleep(20);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(stopped).toBe(true);
  });
});
