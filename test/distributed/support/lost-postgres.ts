import type { ProcessOutput } from "@assay/test-support/process-output";
import { expect } from "vitest";

// The exit code of an unreachable service (docs/cli.md, "Exit codes").
const UNAVAILABLE = 5;

/**
 * A command whose own Postgres (on loopback) was killed under it ended as an outage: one
 * line naming the server, exit 5, no stack trace and no unhandled 'error' event.
 */
export function expectLostPostgres(failed: ProcessOutput): void {
  expect(failed.stderr, failed.stderr).not.toMatch(/Unhandled 'error' event|\n\s+at /);
  expect(failed.stderr).toMatch(/lost the connection to Postgres at .*127\.0\.0\.1/);
  expect(failed.code).toBe(UNAVAILABLE);
}
