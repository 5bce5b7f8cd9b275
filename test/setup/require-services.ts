/**
 * Vitest global setup: the suite talks to a real PostgreSQL and a real Redis. When either is
 * not answering, say so in one line with how to start it, instead of dozens of failures.
 */
import { connect } from "node:net";
import { readEnv } from "@assay/core";

interface Service {
  name: string;
  variable: string;
  url: string;
  defaultPort: number;
}

const env = readEnv();
const services: Service[] = [
  {
    name: "PostgreSQL",
    variable: "DATABASE_URL",
    url: env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test",
    defaultPort: 5432,
  },
  {
    name: "Redis",
    variable: "REDIS_URL",
    url: env.REDIS_URL,
    defaultPort: 6379,
  },
];

export default async function requireServices(): Promise<void> {
  const missing: string[] = [];
  for (const service of services) {
    const { hostname, port } = new URL(service.url);
    const portNumber = port === "" ? service.defaultPort : Number(port);
    if (!(await answers(hostname, portNumber))) {
      missing.push(`${service.name} at ${hostname}:${portNumber} (${service.variable})`);
    }
  }
  if (missing.length === 0) return;
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
