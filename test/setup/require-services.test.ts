import { DATABASE_URL } from "@assay/test-support/stores";
import { describe, expect, it } from "vitest";
import { databaseRefusal, onlyPurePackages } from "./require-services.js";

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

// Pure packages' tests run with no server answering; anything else checks the servers first.
describe("which runs need the servers", () => {
  const vitest = (...args: string[]) => ["node", "vitest.mjs", ...args];
  const root = "/repo";

  it("needs none for files and folders of pure packages only", () => {
    for (const argv of [
      vitest("run", "packages/core"),
      vitest("run", "packages/core/test/sigmoid.test.ts", "packages/scorers/test/"),
      vitest("run", "./packages/verifier/test/batching.test.ts", "--reporter=dot"),
      vitest("run", "/repo/packages/selection"),
    ]) {
      expect(onlyPurePackages(argv, root), argv.join(" ")).toBe(true);
    }
  });

  it("needs them for the whole suite, a project, another package, or a filter it cannot place", () => {
    for (const argv of [
      vitest("run"),
      vitest("run", "--project", "quick"),
      vitest("run", "packages/core", "packages/store/test/prune.test.ts"),
      vitest("run", "packages/coreutils"),
      vitest("run", "packages"),
      vitest("run", "--reporter", "dot", "packages/core"),
      vitest("packages/core"),
    ]) {
      expect(onlyPurePackages(argv, root), argv.join(" ")).toBe(false);
    }
  });
});
