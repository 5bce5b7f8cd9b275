/**
 * Vitest global setup: the suite talks to a real PostgreSQL and a real Redis. When either is
 * not answering, say so in one line with how to start it, instead of dozens of failures.
 * A run of pure packages' tests only (`npx vitest run packages/core`) needs neither.
 */
import { connect } from "node:net";
import { relative, resolve } from "node:path";
import { readEnv } from "@assay/core";
import { DATABASE_URL } from "@assay/test-support/database-url";
import pg from "pg";

interface Service {
  name: string;
  variable: string;
  url: string;
  defaultPort: number;
}

const env = readEnv();
const postgresUrl = DATABASE_URL;
const services: Service[] = [
  {
    name: "PostgreSQL",
    variable: "DATABASE_URL",
    url: postgresUrl,
    defaultPort: 5432,
  },
  {
    name: "Redis",
    variable: "REDIS_URL",
    url: env.REDIS_URL,
    defaultPort: 6379,
  },
];

// The packages whose tests touch no server: plain data in, plain data out (and the verifier's
// models, served by a Hub server of the test's own).
const PURE_PACKAGES = [
  "packages/core/",
  "packages/model-tools/",
  "packages/report/",
  "packages/scorers/",
  "packages/selection/",
  "packages/verifier/",
];

/**
 * Whether the command line names only files or folders of pure packages. Conservative: an
 * option's value taken for a filter (`--reporter dot`) names no pure package, and then the
 * servers are checked as for the whole suite.
 */
export function onlyPurePackages(argv: readonly string[], root = process.cwd()): boolean {
  const run = argv.findIndex((arg) => arg === "run" || arg === "watch");
  const filters = argv.slice(run + 1).filter((arg) => !arg.startsWith("-"));
  if (run === -1 || filters.length === 0) return false;
  return filters.every((filter) => {
    const path = `${relative(root, resolve(root, filter)).split("\\").join("/")}/`;
    return PURE_PACKAGES.some((pure) => path.startsWith(pure));
  });
}

export default async function requireServices(): Promise<void> {
  if (onlyPurePackages(process.argv)) return;
  const missing: string[] = [];
  for (const service of services) {
    const { hostname, port } = new URL(service.url);
    const portNumber = port === "" ? service.defaultPort : Number(port);
    if (!(await answers(hostname, portNumber))) {
      missing.push(`${service.name} at ${hostname}:${portNumber} (${service.variable})`);
    }
  }
  if (missing.length === 0) {
    const refusal = await databaseRefusal(postgresUrl);
    if (refusal === undefined) return;
    console.error(refusal);
    process.exit(1);
  }
  console.error(
    `The tests need ${missing.join(" and ")}, not answering: start ${missing.length > 1 ? "them" : "it"} ` +
      "with `bash .ci/services.sh`, or point the variable at a running server.",
  );
  process.exit(1);
}

function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 2_000 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once("connect", () => done(true));
    socket.once("timeout", () => done(false));
    socket.once("error", () => done(false));
  });
}

/**
 * Why the server answering on the port refuses the tests' database, in one line with the
 * command that fixes it; undefined when it lets them in.
 */
export async function databaseRefusal(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  try {
    await client.connect();
    return undefined;
  } catch (error) {
    const { hostname, port, pathname, username } = new URL(url);
    const database = decodeURIComponent(pathname.slice(1));
    const server = `${hostname}:${port === "" ? 5432 : port}`;
    const code = (error as { code?: unknown }).code;
    if (code === "3D000") {
      return (
        `The tests need a database named "${database}" on PostgreSQL at ${server}: create it ` +
        `with \`createdb -h ${hostname} -U ${username || "postgres"} ${database}\`, or point ` +
        "DATABASE_URL at another."
      );
    }
    const reason = error instanceof Error ? error.message : String(error);
    return `PostgreSQL at ${server} refused the tests (${reason}): set DATABASE_URL to a database they may use.`;
  } finally {
    await client.end().catch(() => {});
  }
}
