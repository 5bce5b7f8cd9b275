import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
  };
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
  const deadline = Date.now() + 10_000;
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
      probe.disconnect();
      return child;
    } catch {
      probe.disconnect();
      if (Date.now() > deadline) throw new Error(`redis-server did not start at ${url}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** A TCP port on 127.0.0.1 that nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address !== null ? resolve(address.port) : reject(),
      );
    });
  });
}
