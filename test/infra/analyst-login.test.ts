import { spawnSync } from "node:child_process";
import { createHash, createHmac, pbkdf2Sync } from "node:crypto";
import { join } from "node:path";
import { openStore } from "@assay/store";
import { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/services";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INFRA } from "./support/paths.js";

// infra/analyst-login.sh, the one-shot compose service that lets Grafana log in as the
// read-only role: run as written, with psql, against this host's Postgres.

const SCRIPT = join(INFRA, "analyst-login.sh");
const server = new URL(DATABASE_URL);

function analystLogin(env: Record<string, string>) {
  return spawnSync("sh", [SCRIPT], {
    encoding: "utf8",
    env: {
      PATH: process.env.PATH,
      PGHOST: server.hostname,
      PGPORT: server.port || "5432",
      PGUSER: decodeURIComponent(server.username),
      PGPASSWORD: decodeURIComponent(server.password),
      PGDATABASE: server.pathname.slice(1),
      ...env,
    },
  });
}

/** Whether `password` is the one a SCRAM-SHA-256 verifier (pg_authid.rolpassword) was made from. */
function scramMatches(verifier: string, password: string): boolean {
  const m = /^SCRAM-SHA-256\$(\d+):([^$]+)\$([^:]+):(.+)$/.exec(verifier);
  if (m === null) throw new Error(`Not a SCRAM-SHA-256 verifier: ${verifier.slice(0, 16)}…`);
  const [, iterations, salt, storedKey] = m as unknown as [string, string, string, string];
  const salted = pbkdf2Sync(
    password,
    Buffer.from(salt, "base64"),
    Number(iterations),
    32,
    "sha256",
  );
  const clientKey = createHmac("sha256", salted).update("Client Key").digest();
  return createHash("sha256").update(clientKey).digest("base64") === storedKey;
}

describe("infra/analyst-login.sh", () => {
  it("refuses to run without ASSAY_ANALYST_PASSWORD and says where to set it", () => {
    for (const env of [{}, { ASSAY_ANALYST_PASSWORD: "" }] as Record<string, string>[]) {
      const result = analystLogin(env);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain("ASSAY_ANALYST_PASSWORD is not set: add it to infra/.env");
    }
  });
});

describe("infra/analyst-login.sh on a migrated store", () => {
  const schema = freshSchema();
  const client = new pg.Client({ connectionString: DATABASE_URL });
  const role = async () =>
    (
      await client.query(
        "SELECT rolcanlogin, rolpassword FROM pg_authid WHERE rolname = 'assay_analyst'",
      )
    ).rows[0] as { rolcanlogin: boolean; rolpassword: string | null } | undefined;
  let before: { rolcanlogin: boolean; rolpassword: string | null } | undefined;

  beforeAll(async () => {
    const store = await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
    await store.close();
    await client.connect();
    before = await role();
  });
  afterAll(async () => {
    // The role belongs to the whole server: leave it as the migration made it.
    if (before !== undefined && !before.rolcanlogin) {
      await client.query("ALTER ROLE assay_analyst NOLOGIN PASSWORD NULL");
    }
    await client.end();
    await dropSchema(schema);
  });

  it("gives assay_analyst a login with that password, and can run again", async () => {
    expect(before, "the migration creates the role").toBeDefined();
    const password = `pw-${Date.now().toString(36)}`;
    const result = analystLogin({ ASSAY_ANALYST_PASSWORD: password });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("assay_analyst may log in");
    const after = await role();
    expect(after?.rolcanlogin).toBe(true);
    expect(scramMatches(after?.rolpassword as string, password)).toBe(true);
    expect(scramMatches(after?.rolpassword as string, `${password}x`)).toBe(false);
    // Run again (compose reruns it on every `up`): same result.
    expect(analystLogin({ ASSAY_ANALYST_PASSWORD: password }).status).toBe(0);
  });
});
