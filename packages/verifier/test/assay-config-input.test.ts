import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempRoot, tinyModel } from "@assay/test-support/tiny-models";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { ModelFolderError } from "../src/index.js";
import { readAssayConfig } from "../src/model/read-assay-config.js";

// assay.json is input like a dataset line: one key more in any of its objects, be it a
// name every JavaScript object inherits, `__proto__`, or a key written twice, is refused
// with the file and the key. Never a crash, never a value silently replaced.
const INHERITED = Object.getOwnPropertyNames(Object.prototype);
const dir = join(tempRoot, "assay-config-input");
mkdirSync(dir, { recursive: true });

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
let bases: Json[] = [];
beforeAll(async () => {
  bases = await Promise.all(
    [tinyModel(), tinyModel({ head: "distribution" })].map(
      async (model) => JSON.parse(readFileSync(join(await model, "assay.json"), "utf8")) as Json,
    ),
  );
});

/** Every object in `value`, in document order. */
function objects(value: Json, found: Record<string, Json>[] = []): Record<string, Json>[] {
  if (Array.isArray(value)) for (const item of value) objects(item, found);
  else if (typeof value === "object" && value !== null) {
    found.push(value);
    for (const item of Object.values(value)) objects(item, found);
  }
  return found;
}

/** JSON text of `value` with one more entry in `target`, first or last: a key may repeat. */
function withEntry(value: Json, target: object, entry: [string, Json], first: boolean): string {
  if (Array.isArray(value)) {
    return `[${value.map((item) => withEntry(item, target, entry, first)).join(",")}]`;
  }
  if (typeof value !== "object" || value === null) return JSON.stringify(value);
  const pairs = Object.entries(value).map(
    ([key, item]) => `${JSON.stringify(key)}:${withEntry(item, target, entry, first)}`,
  );
  if (value === target) {
    const extra = `${JSON.stringify(entry[0])}:${JSON.stringify(entry[1])}`;
    if (first) pairs.unshift(extra);
    else pairs.push(extra);
  }
  return `{${pairs.join(",")}}`;
}

const mutation = fc.record({
  base: fc.nat(),
  object: fc.nat(),
  key: fc.oneof(fc.constantFrom(...INHERITED), fc.constant("repeat")),
  value: fc.constantFrom<Json>(1, "x", true, null, [], {}),
  first: fc.boolean(),
});

async function refusal(text: string): Promise<ModelFolderError> {
  writeFileSync(join(dir, "assay.json"), text);
  const error = await readAssayConfig(dir).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, text).toBeInstanceOf(ModelFolderError);
  return error as ModelFolderError;
}

describe("assay.json is checked as a dataset line is", () => {
  it("accepts the tiny models' own assay.json", async () => {
    for (const base of bases) {
      writeFileSync(join(dir, "assay.json"), JSON.stringify(base));
      // Read back with every field the file gives (defaults may add more).
      await expect(readAssayConfig(dir)).resolves.toMatchObject(base as object);
    }
  });

  it("refuses one key more in any object, naming assay.json and the key", async () => {
    await fc.assert(
      fc.asyncProperty(mutation, async ({ base, object, key, value, first }) => {
        const config = bases[base % bases.length] as Json;
        const all = objects(config);
        const target = all[object % all.length] as Record<string, Json>;
        const keys = Object.keys(target);
        const repeated = keys[object % keys.length] as string;
        const name = key === "repeat" ? repeated : key;
        const entry: [string, Json] = [name, key === "repeat" ? (target[repeated] ?? null) : value];
        const error = await refusal(withEntry(config, target, entry, first));
        expect(error.file).toBe(join(dir, "assay.json"));
        expect(error.message).toContain(name);
        if (key === "repeat") expect(error.message).toMatch(/appears twice/);
      }),
      { numRuns: 300 },
    );
  });

  it("names an unknown field without a dataset line's advice (assay.json has no `metadata`)", async () => {
    const config = { ...(bases[0] as Record<string, Json>), max_lenght: 64 };
    const error = await refusal(JSON.stringify(config));
    expect(error.message).toMatch(/assay\.json: unknown field `max_lenght`$/);
  });

  it("names the key written twice, as a dataset line's refusal does", async () => {
    const error = await refusal('{"max_length": 64, "max_length": 4096}');
    expect(error.field).toBe("max_length");
    expect(error.message).toContain("this key appears twice in one object");
  });
});
