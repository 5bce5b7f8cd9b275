import { DATABASE_URL } from "@assay/test-support/stores";
import { describe, expect, it } from "vitest";
import { databaseRefusal } from "./require-services.js";

// Before any test runs, a server that answers but lacks the tests' database is named in
// one line with the command that creates it, instead of failing every test that connects.

describe("the tests' Postgres database", () => {
  it("lets the tests in when it exists", async () => {
    expect(await databaseRefusal(DATABASE_URL)).toBeUndefined();
  });

  it("when missing, says which and how to create it", async () => {
    const url = new URL(DATABASE_URL);
    url.pathname = "/assay_no_such_database";
    const refusal = await databaseRefusal(url.href);
    expect(refusal).toContain('need a database named "assay_no_such_database"');
    expect(refusal).toMatch(/create it with `createdb -h \S+ -U \S+ assay_no_such_database`/);
  });
});
