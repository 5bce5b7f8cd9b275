import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { openStore } from "@assay/store";
import { freePort } from "@assay/test-support/redis-server";
import {
  DATABASE_URL,
  deletePrefix,
  dropSchema,
  freshPrefix,
  freshSchema,
  PATIENCE_MS,
  REDIS_URL,
  waitFor,
} from "@assay/test-support/services";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCompose } from "./support/compose.js";
import { ROOT } from "./support/paths.js";

/** `argv` as the container would run it, on `port` instead of the fixed metrics port. */
const onPort = (argv: string[], fixed: string, port: number) =>
  argv.map((arg) => (arg === "node" ? process.execPath : arg.replaceAll(fixed, String(port))));

// The compose file's worker healthcheck, run as written against the CPU worker started with
// the compose file's own command (the built entry point), on real Postgres and Redis.
describe("the worker healthcheck", () => {
  const service = loadCompose().services["worker-cpu"];
  const command = service?.command ?? [];
  const healthcheck = (service?.healthcheck?.test ?? []).slice(1);
  const fixedPort = command[command.indexOf("--metrics-port") + 1] as string;
  const schema = freshSchema();
  const prefix = freshPrefix();
  let worker: ChildProcess | undefined;
  let output = "";

  beforeAll(async () => {
    const store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
    await store.close();
  });
  afterAll(async () => {
    worker?.kill("SIGKILL");
    await dropSchema(schema);
    await deletePrefix(prefix);
  });

  /** The healthcheck's exit status against `port`. */
  const check = (port: number) => {
    const [program, ...args] = onPort(healthcheck, fixedPort, port);
    return spawnSync(program as string, args, { cwd: ROOT, timeout: PATIENCE_MS }).status;
  };

  it("passes while the worker runs, and fails once SIGTERM has drained it", async () => {
    expect(healthcheck[0]).toBe("node");
    const port = await freePort();
    const [program, ...args] = onPort(command, fixedPort, port);
    worker = spawn(
      program as string,
      [
        ...args,
        "--db",
        DATABASE_URL,
        "--db-schema",
        schema,
        "--redis",
        REDIS_URL,
        "--queue-prefix",
        prefix,
      ],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    const exited = once(worker, "exit");
    worker.stdout?.on("data", (chunk: Buffer) => (output += chunk));
    worker.stderr?.on("data", (chunk: Buffer) => (output += chunk));
    await waitFor(
      async () => output.includes('"msg":"worker started"'),
      30_000,
      `worker start:\n${output}`,
    );

    expect(check(port)).toBe(0);
    worker.kill("SIGTERM");
    const [code] = await exited;
    expect(code, output).toBe(0);
    expect(check(port)).not.toBe(0);
  });
});
