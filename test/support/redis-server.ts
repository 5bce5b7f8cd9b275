import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PATIENCE_MS } from "@assay/test-support/services";
import { Redis } from "ioredis";

/** A redis-server of the test's own, on a free loopback port, with its data in a temp dir. */
export interface OwnRedis {
  url: string;
  dir: string;
  /** kill -9 the server (no shutdown save). */
  kill(): Promise<void>;
  /** Starts it again on the same port and data dir (loads the AOF). */
  restart(): Promise<void>;
  /** Stops the server and removes its data dir. */
  remove(): Promise<void>;
  /**
   * True when every write the server has taken is in its append-only file, so a kill -9 of
   * the process loses none of it (the OS holds written data even before fsync).
   */
  aofWritten(): Promise<boolean>;
  /**
   * What the server holds and logged, for a failure message: its key count, persistence
   * state, the files of its append-only dir (the manifest's text) and its log's last lines.
   */
  describe(): Promise<string>;
}

export async function startRedis(extraArgs: string[] = []): Promise<OwnRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "assay-redis-"));
  const url = `redis://127.0.0.1:${port}`;
  const args = [
    "--bind",
    "127.0.0.1",
    "--port",
    String(port),
    "--dir",
    dir,
    "--save",
    "",
    // What it did on start (loaded the AOF, or started empty) is what a fault test asks.
    "--logfile",
    join(dir, "redis.log"),
    ...extraArgs,
  ];
  let child = await launch(args, url);
  const kill = async (): Promise<void> => {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  };
  return {
    url,
    dir,
    kill,
    restart: async () => {
      child = await launch(args, url);
    },
    remove: async () => {
      if (child.exitCode === null && child.signalCode === null) await kill();
      rmSync(dir, { recursive: true, force: true });
    },
    aofWritten: async () => {
      const info = await withClient(url, (redis) => redis.info("persistence"));
      return (
        /^aof_enabled:1\r?$/m.test(info) &&
        /^aof_last_write_status:ok\r?$/m.test(info) &&
        // Writes are buffered until the event loop flushes them; an empty buffer means
        // everything answered before this INFO has been written to the file.
        /^aof_buffer_length:0\r?$/m.test(info)
      );
    },
    describe: () => describeRedis(url, dir),
  };
}

async function describeRedis(url: string, dir: string): Promise<string> {
  const served = await withClient(url, async (redis) => {
    const [keys, info] = await Promise.all([redis.dbsize(), redis.info("persistence")]);
    const aof = info
      .split(/\r?\n/)
      .filter((line) => /^(aof_|loading|rdb_last_load)/.test(line))
      .join(" ");
    return `${keys} keys; ${aof}`;
  }).catch((error: unknown) => `no answer (${String(error)})`);
  const aofDir = join(dir, "appendonlydir");
  const files = existsSync(aofDir)
    ? readdirSync(aofDir).map((name) => {
        const path = join(aofDir, name);
        const text = name.endsWith(".manifest") ? ` [${readFileSync(path, "utf8").trim()}]` : "";
        return `${name} ${statSync(path).size} B${text}`;
      })
    : ["no appendonlydir"];
  const log = existsSync(join(dir, "redis.log"))
    ? readFileSync(join(dir, "redis.log"), "utf8").trim().split("\n").slice(-30).join("\n")
    : "no log";
  return `server: ${served}\nappendonlydir: ${files.join("; ")}\nlog (last 30 lines):\n${log}`;
}

async function withClient<T>(url: string, use: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}

async function launch(args: string[], url: string): Promise<ChildProcess> {
  const child = spawn("redis-server", args, { stdio: "ignore" });
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const probe = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    probe.on("error", () => {});
    try {
      await probe.connect();
      // While the AOF loads the server answers LOADING; wait until it serves commands.
      await probe.ping();
      // The server that answered must be the one just started, not another on the port.
      const info = await probe.info("server");
      probe.disconnect();
      if (!new RegExp(`^process_id:${child.pid}\\r?$`, "m").test(info)) {
        child.kill("SIGKILL");
        throw new PortTakenError(`another server answers at ${url}`);
      }
      return child;
    } catch (error) {
      probe.disconnect();
      if (error instanceof PortTakenError) throw error;
      if (Date.now() > deadline) throw new Error(`redis-server did not start at ${url}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

// Ports for the servers a test starts, below Linux's ephemeral range (32768 and up) and a
// block of their own per test process. A server killed and restarted on its port must find
// it still free: a port from the ephemeral range can meanwhile be handed to a server of a
// test running beside it, and the restarted server's clients then talk to that one.
const PORT_BASE = 20_000;
const PORT_SPAN = 12_000; // 20000..31999
const PORTS_PER_PROCESS = 25;
let taken = 0;

/** A TCP port on 127.0.0.1 that nothing listens on right now, of this process's block. */
export async function freePort(): Promise<number> {
  const start = (process.pid % (PORT_SPAN / PORTS_PER_PROCESS)) * PORTS_PER_PROCESS;
  for (; taken < PORT_SPAN; taken += 1) {
    const port = PORT_BASE + ((start + taken) % PORT_SPAN);
    if (await listens(port)) continue;
    taken += 1;
    return port;
  }
  throw new Error("no free port below the ephemeral range");
}

/** Whether something already listens on the port (binding it fails). */
function listens(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(true));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(false)));
  });
}

class PortTakenError extends Error {}
