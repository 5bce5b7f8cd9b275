import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@assay/test-support/redis-server";
import { PATIENCE_MS, waitFor } from "@assay/test-support/services";
import { parse as parseShell } from "shell-quote";
import { afterAll, describe, expect, it } from "vitest";
import { INFRA, ROOT } from "./support/paths.js";

// infra/redis.conf started as infra/README.md says to on a plain host: no container, no
// /data, the shipped file and the documented flags, on a port and in a folder of the test's.

const PASSWORD = randomBytes(16).toString("hex");
const work = mkdtempSync(join(tmpdir(), "assay-redis-host-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The README's plain-host command (`... redis-start.sh <conf> --dir <folder> ...`), as argv. */
function documentedCommand(): string[] {
  const readme = readFileSync(join(INFRA, "README.md"), "utf8");
  const line = readme.split("\n").find((l) => /redis-start\.sh \S+ .*--dir /.test(l));
  if (line === undefined) throw new Error("infra/README.md no longer shows redis-start.sh --dir");
  const words = parseShell(line.trim(), (name) => `$${name}`).filter(
    (token): token is string => typeof token === "string",
  );
  // Leading VAR=value assignments are the environment; the test sets REDIS_PASSWORD itself.
  while (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] ?? "")) words.shift();
  return words;
}

/** `argv` with the value after `flag` replaced. */
function withValue(argv: string[], flag: string, value: string): string[] {
  const at = argv.indexOf(flag);
  expect(at, `the documented command gives ${flag}`).toBeGreaterThan(0);
  return argv.map((word, index) => (index === at + 1 ? value : word));
}

const redisCli = (port: number, args: string[], password?: string) =>
  spawnSync("redis-cli", ["-p", String(port), ...args], {
    env: { ...process.env, REDISCLI_AUTH: password },
    encoding: "utf8",
    timeout: PATIENCE_MS,
  });

describe("Redis on a plain host, as infra/README.md starts it", () => {
  it("starts with the shipped file and --dir, serves only clients that give the password, and keeps its AOF there", async () => {
    const port = await freePort();
    const documented = documentedCommand();
    expect(documented.slice(0, 3)).toEqual(["sh", "infra/redis-start.sh", "infra/redis.conf"]);
    const argv = withValue(withValue(documented, "--dir", work), "--port", String(port));
    let output = "";
    const server = spawn(argv[0] as string, argv.slice(1), {
      cwd: ROOT,
      env: { ...process.env, REDIS_PASSWORD: PASSWORD },
      stdio: ["ignore", "pipe", "pipe"],
    });
    server.stdout?.on("data", (chunk: Buffer) => (output += chunk));
    server.stderr?.on("data", (chunk: Buffer) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => server.once("exit", resolve));
    try {
      await waitFor(
        async () => {
          // A server that stopped (a bad config) will not answer: fail now, with its words.
          if (server.exitCode !== null) throw new Error(`redis-start.sh exited:\n${output}`);
          return redisCli(port, ["ping"], PASSWORD).stdout.trim() === "PONG";
        },
        15_000,
        `redis-start.sh on port ${port}:\n${output}`,
      );
      expect(redisCli(port, ["ping"]).stdout).toContain("NOAUTH");
      const config = redisCli(port, ["config", "get", "*"], PASSWORD).stdout.trim().split("\n");
      const setting = (name: string) => config[config.indexOf(name) + 1];
      expect(setting("dir")).toBe(work);
      expect(setting("appendonly")).toBe("yes");
      expect(setting("maxmemory-policy")).toBe("noeviction");
      expect(redisCli(port, ["set", "assay:probe", "1"], PASSWORD).stdout.trim()).toBe("OK");
    } finally {
      redisCli(port, ["shutdown"], PASSWORD);
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      server.kill("SIGKILL");
    }
    expect(await exited, output).toBe(0);
    // The AOF (Redis 7: a folder of base and incremental files) is in the folder --dir gave.
    expect(readdirSync(join(work, "appendonlydir")).some((f) => f.endsWith(".incr.aof"))).toBe(
      true,
    );
  });

  // Where /data exists (a container), the script's default is in use, not this message.
  it.skipIf(existsSync("/data"))(
    "without --dir and no /data, stops before Redis does and says to give the folder",
    () => {
      const result = spawnSync("sh", ["infra/redis-start.sh", "infra/redis.conf"], {
        cwd: ROOT,
        env: { ...process.env, REDIS_PASSWORD: PASSWORD },
        encoding: "utf8",
        timeout: PATIENCE_MS,
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain("redis-start.sh: no folder /data for Redis's data");
      expect(result.stderr).toContain("--dir <folder>");
    },
  );
});
