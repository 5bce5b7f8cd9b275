import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { maskSecrets, redactUrl } from "../src/index.js";

describe("redactUrl", () => {
  it.each([
    ["a password in the userinfo", "postgres://u:SECRET@h:5432/db", "postgres://u:***@h:5432/db"],
    [
      "password= in the query",
      "postgres://u@h/db?password=SECRET",
      "postgres://u@h/db?password=***",
    ],
    ["pass= in the query", "redis://h:6379?pass=SECRET&db=2", "redis://h:6379?pass=***&db=2"],
    [
      "token-like keys in the query",
      "postgres://h/db?sslmode=require&api_key=SECRET&access_token=SECRET",
      "postgres://h/db?sslmode=require&api_key=***&access_token=***",
    ],
    ["a percent-encoded key", "redis://h?pass%77ord=SECRET", "redis://h?pass%77ord=***"],
    [
      "an empty user and a port out of range",
      "postgres://:SECRET@h:99999/db",
      "postgres://:***@h:99999/db",
    ],
    ["a malformed percent escape", "postgres://u:SEC%zzRET@h/db", "postgres://u:***@h/db"],
    ["a malformed escape in the key", "redis://h?%zzpassword=SECRET", "redis://h?%zzpassword=***"],
    ["an unencoded / ? # in the password", "postgres://u:SE/C?R#ET@h/db", "postgres://u:***@h/db"],
    ["an @ in the password", "postgres://u:SE@CRET@h/db", "postgres://u:***@h/db"],
    ["no scheme", "u:SECRET@h/db", "u:***@h/db"],
  ])("masks %s", (_form, url, masked) => {
    expect(redactUrl(url)).toBe(masked);
  });

  it("leaves a URL without secrets as it is", () => {
    for (const url of [
      "postgres://assay@db:5432/assay?sslmode=require",
      "redis://127.0.0.1:6379",
      "memory://",
      "not a url at all",
    ]) {
      expect(redactUrl(url)).toBe(url);
    }
  });
});

describe("maskSecrets", () => {
  it("masks every URL in a message and keeps the punctuation around it", () => {
    const text =
      'Cannot connect at postgres://u:SECRET@h/db: refused; retry "redis://:SECRET@r:1?x=1".';
    expect(maskSecrets(text)).toBe(
      'Cannot connect at postgres://u:***@h/db: refused; retry "redis://:***@r:1?x=1".',
    );
  });

  it("masks a known URL's secrets wherever a driver quotes them, raw or decoded", () => {
    const url = "postgres://u:p%40ss%2Fword@h/db?sslpassword=other-secret";
    expect(maskSecrets("auth failed for p@ss/word and p%40ss%2Fword (other-secret)", [url])).toBe(
      "auth failed for *** and *** (***)",
    );
  });

  // A marker at the start of each generated secret: the check is that it never shows.
  const MARK = "S3CR3T";
  const anySecret = fc.string({ unit: "binary", maxLength: 30 }).map((tail) => MARK + tail);
  /** Characters a password can hold in a query value: `&` and `#` would end it. */
  const querySecret = anySecret.filter((s) => !/[&#]/.test(s));
  /** Inside free text a URL ends at whitespace, quotes, backslashes and angle brackets. */
  const inText = (s: string) => !/[\s"\\`<>]/.test(s);
  const forms = (secret: string): string[] => [
    `postgres://user:${secret}@host:5432/db`,
    `postgres://:${secret}@host:99999/db`,
    `postgres://user@host/db?sslmode=disable&password=${secret}`,
    `redis://host:6379?pass=${secret}`,
    `rediss://host?token=${secret}&db=1`,
  ];

  it("never returns the secret of a URL, whatever the secret holds", () => {
    fc.assert(
      fc.property(anySecret, querySecret, (userSecret, query) => {
        for (const url of [...forms(userSecret).slice(0, 2), ...forms(query).slice(2)]) {
          expect(redactUrl(url)).not.toContain(MARK);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("never prints the secret of a URL quoted in a message", () => {
    fc.assert(
      fc.property(querySecret.filter(inText), fc.constantFrom("", ".", ":", ")"), (secret, end) => {
        for (const url of forms(secret)) {
          expect(maskSecrets(`failed at ${url}${end} retrying`)).not.toContain(MARK);
        }
      }),
      { numRuns: 300 },
    );
  });
});
