import { ConfigError } from "@assay/core";
import { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/stores";
import { describe, expect, it } from "vitest";
import { openStore } from "../src/open-store.js";
import { registerCalibrationSuite } from "./calibration-suite.js";
import { registerEarlyStopSuite } from "./early-stops-suite.js";
import { registerStoreSuite, type StoreFactory } from "./store-suite.js";

const schemas: string[] = [];

/** Each store gets its own schema, dropped afterwards, so test files never meet. */
function trackedSchema(): string {
  const schema = freshSchema();
  schemas.push(schema);
  return schema;
}

async function dropSchemas(): Promise<void> {
  for (const schema of schemas.splice(0)) await dropSchema(schema);
}

const postgres: StoreFactory = {
  open: ({ migrate }) => openStore({ databaseUrl: DATABASE_URL, schema: trackedSchema(), migrate }),
  cleanup: dropSchemas,
};
registerStoreSuite("postgres", postgres);
registerEarlyStopSuite("postgres", postgres);
registerCalibrationSuite("postgres", postgres);

describe("postgres connection", () => {
  it("names the server, without its password, when it cannot connect", async () => {
    const url = "postgres://assay:s3cret-pw@127.0.0.1:1/assay";
    const attempt = openStore({ databaseUrl: url });
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    const message = await attempt.catch((error: Error) => error.message);
    expect(message).toContain("postgres://assay:***@127.0.0.1:1/assay");
    expect(message).not.toContain("s3cret-pw");
  });

  it("refuses a schema name it would have to quote", async () => {
    await expect(
      openStore({ databaseUrl: DATABASE_URL, schema: 'x"; drop' }),
    ).rejects.toBeInstanceOf(ConfigError);
  });
});
