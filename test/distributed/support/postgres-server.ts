import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { appendFileSync, chownSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@assay/test-support/redis-server";
import { PATIENCE_MS } from "@assay/test-support/services";
import pg from "pg";

/** A Postgres cluster of the test's own, on a free loopback port, with its data in a temp dir. */
export interface OwnPostgres {
  url: string;
  /** kill -9 the postmaster and every backend (no shutdown checkpoint). */
  kill(): Promise<void>;
  /** Starts it again on the same port and data dir (crash recovery replays the WAL). */
  restart(): Promise<void>;
  /** Stops the server and removes its data dir. */
  remove(): Promise<void>;
}

// initdb and postgres refuse to run as root; the test runs them as this user when it is root.
const SERVER_USER = "postgres";

/**
 * `settings`: more server settings (`name = value`), e.g. a small lock table, written to its
 * postgresql.conf, so that ALTER SYSTEM and a restart can change them.
 */
export async function startPostgres(settings: string[] = []): Promise<OwnPostgres> {
  const bin = postgresBin();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "assay-pg-"));
  const data = join(dir, "data");
  const owner = serverOwner();
  if (owner !== undefined) chownSync(dir, owner.uid, owner.gid);
  const init = spawnSync(
    join(bin, "initdb"),
    ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"],
    { ...owner, encoding: "utf8" },
  );
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  if (settings.length > 0)
    appendFileSync(join(data, "postgresql.conf"), `${settings.join("\n")}\n`);
  const args = [
    "-D",
    data,
    "-p",
    String(port),
    "-k",
    dir,
    "-c",
    "listen_addresses=127.0.0.1",
    "-c",
    "fsync=off",
    "-c",
    "max_connections=50",
  ];
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let child = await launch(join(bin, "postgres"), args, url, owner);
  const kill = async (): Promise<void> => {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    // The postmaster leads its own process group: -9 to the group takes every backend too.
    process.kill(-(child.pid as number), "SIGKILL");
    await exited;
  };
  return {
    url,
    kill,
    restart: async () => {
      child = await launch(join(bin, "postgres"), args, url, owner);
    },
    remove: async () => {
      if (child.exitCode === null && child.signalCode === null) await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgresBin(): string {
  const versions = readdirSync("/usr/lib/postgresql").sort((a, b) => Number(b) - Number(a));
  if (versions[0] === undefined) throw new Error("no PostgreSQL under /usr/lib/postgresql");
  return `/usr/lib/postgresql/${versions[0]}/bin`;
}

function serverOwner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) =>
    Number(spawnSync("id", [flag, SERVER_USER], { encoding: "utf8" }).stdout.trim());
  return { uid: id("-u"), gid: id("-g") };
}

async function launch(
  postgres: string,
  args: string[],
  url: string,
  owner: { uid: number; gid: number } | undefined,
): Promise<ChildProcess> {
  const child = spawn(postgres, args, { ...owner, stdio: "ignore", detached: true });
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    probe.on("error", () => {});
    try {
      // Refused while it starts or replays its WAL; it answers once it serves queries.
      await probe.connect();
      await probe.query("SELECT 1");
      await probe.end();
      return child;
    } catch {
      await probe.end().catch(() => {});
      if (child.exitCode !== null) throw new Error(`postgres exited (${child.exitCode})`);
      if (Date.now() > deadline) throw new Error(`postgres did not start at ${url}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
