import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { ExitCode } from "@assay/cli";
import { openStore } from "@assay/store";
import { freePort, type OwnRedis, startRedis } from "@assay/test-support/redis-server";
import {
  DATABASE_URL,
  dropSchema,
  freshSchema,
  PATIENCE_MS,
  waitFor,
} from "@assay/test-support/services";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCompose } from "./support/compose.js";
import { imageHealthcheck } from "./support/invocations.js";
import { ROOT } from "./support/paths.js";

/** `argv` as the container would run it, on `port` instead of the fixed metrics port. */
const onPort = (argv: string[], fixed: string, port: number) =>
  argv.map((arg) => (arg === "node" ? process.execPath : arg.replaceAll(fixed, String(port))));

// How long Redis stays down: several of ioredis's reconnection attempts (every 2 s at most).
const DOWN_MS = 6000;

// The compose file's worker healthcheck and the images' HEALTHCHECK, run as written against
// the CPU worker started with the compose file's own command (the built entry point), on
// real Postgres and a Redis of the test's own, which the test stops and starts again.
describe("the worker healthcheck, and a Redis outage as the worker reports it", () => {
  const service = loadCompose().services["worker-cpu"];
  const command = service?.command ?? [];
  const healthcheck = (service?.healthcheck?.test ?? []).slice(1);
  const fixedPort = command[command.indexOf("--metrics-port") + 1] as string;
  const schema = freshSchema();
  let redis: OwnRedis;
  let worker: ChildProcess | undefined;
  let exited: Promise<unknown[]>;
  let port: number;
  let output = "";

  beforeAll(async () => {
    redis = await startRedis();
    const store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
    await store.close();
    port = await freePort();
    const [program, ...args] = onPort(command, fixedPort, port);
    worker = spawn(
      program as string,
      [...args, "--db", DATABASE_URL, "--db-schema", schema, "--redis", redis.url],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    exited = once(worker, "exit");
    worker.stdout?.on("data", (chunk: Buffer) => (output += chunk));
    worker.stderr?.on("data", (chunk: Buffer) => (output += chunk));
    await waitFor(
      async () => output.includes('"msg":"worker started"'),
      30_000,
      `worker start:\n${output}`,
    );
  });
  afterAll(async () => {
    worker?.kill("SIGKILL");
    await redis?.remove();
    await dropSchema(schema);
  });

  /** The exit status of `check` (argv with the fixed metrics port) against the worker. */
  const run = (check: string[]) => {
    const [program, ...args] = onPort(check, fixedPort, port);
    return spawnSync(program as string, args, { cwd: ROOT, timeout: PATIENCE_MS }).status;
  };
  const health = async (path: string) => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const metric = async (name: string, labels: string) => {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const line = text.split("\n").find((l) => l.startsWith(`${name}{${labels}} `));
    if (line === undefined) throw new Error(`no ${name}{${labels}} in /metrics:\n${text}`);
    return Number(line.split(" ")[1]);
  };
  const linesMatching = (pattern: RegExp) => output.split("\n").filter((l) => pattern.test(l));

  it("is the images' HEALTHCHECK, and passes while the worker takes jobs", async () => {
    expect(healthcheck[0]).toBe("node");
    for (const file of ["Dockerfile", "gpu.Dockerfile"]) {
      expect(imageHealthcheck(file), file).toEqual(healthcheck);
    }
    expect(run(healthcheck)).toBe(0);
    expect(await health("/readyz")).toEqual({
      status: 200,
      body: {
        ready: true,
        consumer: "taking jobs",
        services: { postgres: "up", redis: "up" },
      },
    });
  });

  it("a lost Redis is one warning and one line when it is back, with the outage's length; /readyz and the metrics show it", async () => {
    expect(await metric("assay_service_up", 'service="redis"')).toBe(1);
    await redis.kill();
    // The fault hit the worker: it saw Redis go, and says so on /readyz and in its metrics.
    await waitFor(
      async () =>
        linesMatching(/lost the connection to Redis at redis:\/\/127\.0\.0\.1/).length > 0,
      10_000,
      `the worker to notice Redis gone:\n${output}`,
    );
    const down = await health("/readyz");
    expect(down.status).toBe(503);
    expect(down.body.services).toMatchObject({
      postgres: "up",
      redis: expect.stringMatching(/^down for /),
    });
    expect((await health("/livez")).status, "alive: a restart would not bring Redis back").toBe(
      200,
    );
    expect(run(healthcheck), "the healthcheck fails while Redis is gone").not.toBe(0);
    expect(await metric("assay_service_up", 'service="redis"')).toBe(0);
    expect(await metric("assay_service_outages_total", 'service="redis"')).toBe(1);

    const downFor = Date.now();
    await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
    await redis.restart();
    await waitFor(
      async () => linesMatching(/is back after/).length > 0,
      15_000,
      `the worker to see Redis back:\n${output}`,
    );
    const outageMs = Date.now() - downFor;

    // Logged: the warning once (its repeat is 30 s away), no stack trace per reconnect.
    expect(linesMatching(/lost the connection to Redis/)).toHaveLength(1);
    expect(linesMatching(/"level":50|"stack"/), output).toEqual([]);
    expect(output.split("\n").filter((l) => l.includes('"level":40'))).toHaveLength(1);
    const [back] = linesMatching(/is back after/);
    const seconds = Number(/is back after ([\d.]+) s: taking jobs again/.exec(back ?? "")?.[1]);
    expect(seconds).toBeGreaterThanOrEqual(DOWN_MS / 1000);
    expect(seconds).toBeLessThanOrEqual(outageMs / 1000 + 5);
    expect(JSON.parse(back as string)).toMatchObject({ level: 30, service: "redis" });

    expect(await metric("assay_service_up", 'service="redis"')).toBe(1);
    expect(await metric("assay_service_outages_total", 'service="redis"')).toBe(1);
    expect(await metric("assay_service_down_seconds_total", 'service="redis"')).toBeCloseTo(
      seconds,
      0,
    );
    await waitFor(async () => run(healthcheck) === 0, 10_000, "the healthcheck to pass again");
  });

  it("fails once SIGTERM has drained the worker", async () => {
    worker?.kill("SIGTERM");
    const [code] = await exited;
    expect(code, output).toBe(ExitCode.ok);
    expect(run(healthcheck)).not.toBe(0);
  });
});
