import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

const TESTS = ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "test/**/*.test.ts"];

/**
 * Suites that take minutes: `npm test` runs them (projects `slow` and `serial`), `npm run
 * test:quick` (project `quick`) leaves them out for the edit-test loop.
 */
const SLOW = [
  // A real browser (Debian's chromium).
  "**/*.browser.test.ts",
  // Verifier models built and run: tiny ONNX graphs, onnxruntime sessions.
  "packages/verifier/test/**/*.test.ts",
  "packages/model-tools/test/**/*.test.ts",
  "test/integration/**/*.test.ts",
  "apps/cli/test/{model,probe,verifier}*.test.ts",
  // The CLI as a user starts it: whole runs of 20,000 lines in a real terminal (a pty), and
  // commands started from sources to list the modules they load.
  "apps/cli/test/{progress-terminal,light-startup}.test.ts",
  // Producers, workers and Redis servers as separate processes; container and manifest checks.
  "test/distributed/**/*.test.ts",
  "test/infra/**/*.test.ts",
  "test/hostile/{corpus,worker-refusals}.test.ts",
  // Whole runs on large generated data.
  "packages/pipeline/test/report-figures.test.ts",
  // A store made with the migrations of an older version (PGlite initialised from nothing,
  // every migration applied), then migrated to head.
  "packages/store/test/partition-migration.test.ts",
];

/**
 * Slow suites that must have the machine to themselves: they kill and restart servers
 * under load, fill a disk, race processes for a lock, or bound a delay or a process's
 * memory that another test's load beside them would stretch.
 */
const SERIAL = [
  "test/chaos/**/*.test.ts",
  "packages/store/test/store-lock-race.test.ts",
  "apps/cli/test/{embedded-memory,full-disk-out,full-disk-store,store-lock}.test.ts",
  "packages/verifier/test/{event-loop,hub-requests}.test.ts",
  "test/distributed/watch-the-night.test.ts",
  "test/infra/worker-healthcheck.test.ts",
];

// Tests import workspace packages from their TypeScript sources (the "@assay/source"
// export condition), so no build is needed to run them.
export default defineConfig({
  resolve: { conditions: ["@assay/source"] },
  ssr: { resolve: { conditions: ["@assay/source"] } },
  test: {
    // Heavy tests (model building, real processes, chaos) take many times longer on a busy
    // 2-core machine than on a quiet one: a slow machine must not fail a test, nor a hook.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: "forks",
    globalSetup: ["test/setup/require-services.ts", "test/setup/scratch-on-tmpfs.ts"],
    // ASSAY_PROPERTY_SCALE scales the properties that name no run count, too.
    setupFiles: ["test/setup/property-scale.ts"],
    projects: [
      // Quick files spend much of their time waiting on what they started (a CLI process,
      // Postgres, which shares the cores): one file more than the cores keeps them busy
      // (3:05 against 3:14 for the group with one file per core, on 2 cores); each file has
      // its own schema, queue prefix and folders, so files never share state.
      {
        extends: true,
        test: {
          name: "quick",
          include: TESTS,
          // One process runs many quick files in turn instead of a new one per file: it
          // saves the module graph's import (about a fifth of the group's CPU). Each quick
          // file stops what it starts and restores what it patches (stdout spies, cwd);
          // what test/support memoises is keyed by its arguments, never removed by a file.
          isolate: false,
          exclude: [...configDefaults.exclude, ...SLOW, ...SERIAL],
          maxWorkers: availableParallelism() + 1,
          sequence: { groupOrder: 0 },
        },
      },
      // A slow suite runs several phases per test (start servers, fill a queue, kill, resume),
      // much of it waiting on what it started: two files at a time, after the quick ones.
      {
        extends: true,
        test: {
          name: "slow",
          include: SLOW,
          exclude: [...configDefaults.exclude, ...SERIAL],
          testTimeout: 600_000,
          hookTimeout: 600_000,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      // Then the ones that measure or break the machine, one file at a time.
      {
        extends: true,
        test: {
          name: "serial",
          include: SERIAL,
          testTimeout: 600_000,
          hookTimeout: 600_000,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
