import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExitCode } from "@assay/cli";
import { openStore } from "@assay/store";
import {
  DATABASE_URL,
  dropSchema,
  freshSchema,
  PATIENCE_MS,
  waitFor,
} from "@assay/test-support/services";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAssay } from "../distributed/support/assay-process.js";
import { loadCompose } from "./support/compose.js";
import { containersOf, find, loadManifests } from "./support/manifests.js";
import { createOtherHost, type OtherHost } from "./support/other-host.js";
import { INFRA } from "./support/paths.js";

// Redis started as compose and Kubernetes start it (infra/redis-start.sh, infra/redis.conf),
// in a network namespace of the test's own, and Assay connecting to it from this host: a
// client from another host, as every worker, producer and KEDA is in a deployment.

const PASSWORD = randomBytes(16).toString("hex");
const START = join(INFRA, "redis-start.sh");
const work = mkdtempSync(join(tmpdir(), "assay-redis-auth-"));
const schema = freshSchema();
const servers: ChildProcess[] = [];
let host: OtherHost;
const conf = join(INFRA, "redis.conf");
// The container's /data does not exist here: the data folder is given as on a plain host.
const DATA = ["--dir", work];

/** Starts `argv` in the other host; resolves once `port` there takes connections. */
async function serveThere(argv: string[], port: number, env: NodeJS.ProcessEnv = {}) {
  const [program, args] = host.command(argv);
  let output = "";
  const server = spawn(program, args, { env: { ...process.env, ...env }, stdio: "pipe" });
  server.stdout?.on("data", (chunk: Buffer) => (output += chunk));
  server.stderr?.on("data", (chunk: Buffer) => (output += chunk));
  servers.push(server);
  await waitFor(() => accepts(host.address, port), 15_000, `Redis on port ${port}:\n${output}`);
}

function accepts(address: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, address);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** `assay worker --pool cpu` from this host, connecting to `redis`. */
function startWorker(redis: string, env: NodeJS.ProcessEnv) {
  const args = ["worker", "--pool", "cpu", "--redis", redis, "--db", DATABASE_URL];
  return startAssay([...args, "--db-schema", schema], env);
}

/** The worker's exit code and stderr after it started and SIGTERM drained it. */
async function startAndStop(redis: string, env: NodeJS.ProcessEnv = {}) {
  const worker = startWorker(redis, env);
  await waitFor(
    async () => worker.stderr().includes('"msg":"worker started"'),
    60_000,
    `worker start:\n${worker.stderr()}`,
  ).finally(() => worker.child.kill("SIGTERM"));
  return worker.done;
}

/** The exit code and stderr of a worker that Redis does not let start. */
function refused(redis: string, env: NodeJS.ProcessEnv = {}) {
  return startWorker(redis, env).done;
}

/** A shell command run in the other host, with REDIS_PASSWORD set to `password`. */
function runThere(argv: string[], password?: string) {
  const [program, args] = host.command(argv);
  const env = { ...process.env, REDIS_PASSWORD: password };
  return spawnSync(program, args, { env, encoding: "utf8", timeout: PATIENCE_MS });
}

beforeAll(async () => {
  host = createOtherHost();
  // As shipped: redis-start.sh, the shipped port, the password from the environment.
  await serveThere(["sh", START, conf, ...DATA], 6379, { REDIS_PASSWORD: PASSWORD });
  // As shipped before Redis had a password: the same config, no password.
  await serveThere(["redis-server", conf, ...DATA, "--port", "6380", "--appendonly", "no"], 6380);
  const store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
  await store.close();
});
afterAll(async () => {
  for (const server of servers) server.kill("SIGKILL");
  host?.remove();
  await dropSchema(schema);
  rmSync(work, { recursive: true, force: true });
});

describe("Redis as infra/ starts it, seen from another host", () => {
  it("takes a worker that gives the password, in REDIS_PASSWORD or in the URL", async () => {
    const fromEnv = await startAndStop(`redis://${host.address}:6379`, {
      REDIS_PASSWORD: PASSWORD,
    });
    expect(fromEnv.code, fromEnv.stderr).toBe(ExitCode.ok);
    const inUrl = await startAndStop(`redis://:${PASSWORD}@${host.address}:6379`);
    expect(inUrl.code, inUrl.stderr).toBe(ExitCode.ok);
    // A password in the URL is the one used; REDIS_PASSWORD only fills in a URL without one.
    const both = await startAndStop(`redis://:${PASSWORD}@${host.address}:6379`, {
      REDIS_PASSWORD: "x",
    });
    expect(both.code, both.stderr).toBe(ExitCode.ok);
  });

  it("refuses a worker without the password or with a wrong one, quoting Redis's reason", async () => {
    const without = await refused(`redis://${host.address}:6379`);
    expect(without.code).toBe(ExitCode.unavailable);
    expect(without.stderr).toContain(
      `assay: Redis at redis://${host.address}:6379 refused the connection: "NOAUTH Authentication required." It requires a password: set REDIS_PASSWORD`,
    );
    const wrong = await refused(`redis://${host.address}:6379`, { REDIS_PASSWORD: "wrong" });
    expect(wrong.code).toBe(ExitCode.unavailable);
    expect(wrong.stderr).toContain('refused the connection: "WRONGPASS');
    expect(wrong.stderr).not.toContain("Connection is closed");
  });

  it("without a password, protected mode refuses every other host; the worker says so", async () => {
    const denied = await refused(`redis://${host.address}:6380`);
    expect(denied.code).toBe(ExitCode.unavailable);
    expect(denied.stderr).toContain(
      'refused the connection: "DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user." Redis takes clients from other hosts only with a password',
    );
    expect(denied.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("passes the compose and Kubernetes healthchecks on Redis's own host only with the password", () => {
    const compose = loadCompose().services.redis?.healthcheck?.test ?? [];
    expect(compose[0]).toBe("CMD-SHELL");
    const probe = containersOf(find(loadManifests(), "StatefulSet", "redis"))[0]?.readinessProbe
      ?.exec?.command as string[];
    for (const check of [["sh", "-c", compose[1] as string], probe]) {
      expect(runThere(check, PASSWORD).status, check.join(" ")).toBe(0);
      expect(runThere(check, "wrong").status, check.join(" ")).not.toBe(0);
    }
  });

  it("redis-start.sh refuses to start Redis without a password it can pass on, saying how to make one", () => {
    const unset = runThere(["sh", START, conf, ...DATA]);
    expect(unset.status).toBe(1);
    expect(unset.stderr).toContain("REDIS_PASSWORD is not set");
    expect(unset.stderr).toContain("openssl rand -hex 32");
    const quoted = runThere(["sh", START, conf, ...DATA], 'pass word"');
    expect(quoted.status).toBe(1);
    expect(quoted.stderr).toContain("REDIS_PASSWORD may hold only letters, digits and . _ ~ -");
  });
});
