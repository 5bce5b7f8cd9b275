import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { afterAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// A spec is input too: what a user meets at the terminal when one holds a key every
// object inherits, `__proto__`, or a key written twice. Before these were refused, the
// first two crashed the run (exit 1, left unfinished) and the last was read silently.
const work = mkdtempSync(join(tmpdir(), "assay-spec-input-"));
const dataset = join(work, "data.jsonl");
writeFileSync(
  dataset,
  `${JSON.stringify({ id: "a", question: "q", answer: "x", target: "x", metadata: { kind: "k" } })}\n`,
);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("a spec with hostile or repeated keys", () => {
  it.each([
    [
      "valueOf.yaml",
      "rules:\n  - { name: r, when: { valueOf: 1 }, scorers: [{ name: exact }] }\n",
      /rule "r" when: cannot match on `valueOf`/,
    ],
    [
      "hasOwnProperty.json",
      '{"rules": [{"name": "r", "when": {"hasOwnProperty": 1}, "scorers": [{"name": "exact"}]}]}',
      /rule "r" when: cannot match on `hasOwnProperty`/,
    ],
    [
      "twice.json",
      '{"default": {"scorers": [{"name": "exact"}]}, "default": {"scorers": [{"name": "f1"}]}}',
      /: default: this key appears twice in one object/,
    ],
    [
      "proto.yaml",
      "rules:\n  - { name: r, when: { __proto__: k }, scorers: [{ name: exact }] }\n",
      /rule "r" when\.__proto__: the key `__proto__` is not allowed/,
    ],
  ])(
    "%s is refused with exit 3, naming the file and the key, before a store opens",
    async (name, text, says) => {
      const spec = join(work, name);
      writeFileSync(spec, text);
      const db = join(work, `store-${name}`);
      const result = await assayInProcess(["run", dataset, "--spec", spec, "--db", db]);
      expect(result.code, result.stderr).toBe(ExitCode.refused);
      expect(result.stderr).toContain(`${spec}: `);
      expect(result.stderr).toMatch(says);
      expect(result.stderr.trim().split("\n"), result.stderr).toHaveLength(1);
      expect(existsSync(db), "the store was never opened").toBe(false);
    },
  );
});
