import { ConfigError } from "@assay/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { serverConnection } from "../src/libpq-options.js";

const schemaName = fc.stringMatching(/^[a-z_][a-z0-9_]{0,20}$/);
/** Other libpq options a URL may carry, each `-c name=value`. */
const otherOption = fc
  .tuple(
    fc.constantFrom("statement_timeout", "application_name", "work_mem", "lock_timeout"),
    fc.stringMatching(/^[A-Za-z0-9_]{1,12}$/),
  )
  .map(([name, value]) => `-c ${name}=${value}`);

function urlWithOptions(options: string): string {
  return `postgres://assay@db.example:5432/night?sslmode=disable&options=${encodeURIComponent(options)}`;
}

describe("a search_path in a postgres:// URL's libpq options", () => {
  it("is the store's schema, as --db-schema is; the URL's other options are kept, in order", () => {
    fc.assert(
      fc.property(
        schemaName,
        fc.array(otherOption, { maxLength: 3 }),
        fc.nat(),
        (schema, others, at) => {
          const words = [...others];
          words.splice(at % (others.length + 1), 0, `-c search_path=${schema}`);
          const url = urlWithOptions(words.join(" "));
          for (const given of [undefined, schema]) {
            const connection = serverConnection(url, given);
            expect(connection.schema).toBe(schema);
            expect(connection.options).toBe([...others, `-c search_path=${schema}`].join(" "));
            // The driver lets a URL's options override the pool's: they must not be there.
            const parsed = new URL(connection.connectionString);
            expect(parsed.searchParams.has("options")).toBe(false);
            expect(parsed.searchParams.get("sslmode")).toBe("disable");
          }
        },
      ),
    );
  });

  it("and a --db-schema naming another schema are refused together, naming both", () => {
    fc.assert(
      fc.property(schemaName, schemaName, (inUrl, inFlag) => {
        fc.pre(inUrl !== inFlag);
        const url = urlWithOptions(`-c search_path=${inUrl}`);
        expect(() => serverConnection(url, inFlag)).toThrow(ConfigError);
        expect(() => serverConnection(url, inFlag)).toThrow(
          `sets search_path=${inUrl} in its options, and --db-schema says ${inFlag}`,
        );
      }),
    );
  });

  it("leaves a URL without one as it is, the schema coming from --db-schema", () => {
    const url = urlWithOptions("-c statement_timeout=5000");
    expect(serverConnection(url, "night")).toEqual({
      connectionString: "postgres://assay@db.example:5432/night?sslmode=disable",
      schema: "night",
      options: "-c statement_timeout=5000 -c search_path=night",
    });
    expect(serverConnection("postgres://assay@db:5432/night", undefined)).toEqual({
      connectionString: "postgres://assay@db:5432/night",
      schema: undefined,
      options: undefined,
    });
  });
});
