// Preloaded into a timed child (`node --import`): on exit, each thread prints the total of
// its garbage-collection pauses as `__gc_ms=<ms>` to stderr, for the bench to add up.
import { PerformanceObserver } from "node:perf_hooks";

let pausedMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) pausedMs += entry.duration;
}).observe({ entryTypes: ["gc"] });
process.on("exit", () => {
  process.stderr.write(`__gc_ms=${pausedMs.toFixed(1)}\n`);
});
