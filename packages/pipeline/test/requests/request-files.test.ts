import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { propertyRuns } from "@assay/test-support/property-runs";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { RequestFileWriter } from "../../src/requests/request-files.js";

// For any requests and any limits a request fits in, the files hold every request once,
// in order, and none passes the request count or the byte size: the split a provider
// needs, in both framings (JSONL lines; Anthropic's one JSON body).

const RUNS = propertyRuns(30);
const work = mkdtempSync(join(tmpdir(), "assay-request-files-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

let calls = 0;

const texts = fc.array(fc.string({ unit: "grapheme", maxLength: 40 }), {
  minLength: 1,
  maxLength: 40,
});

describe("RequestFileWriter", () => {
  it.each(["openai-chat", "anthropic-batch"] as const)(
    "%s: every request once, in order, no file past its limits",
    async (format) => {
      await fc.assert(
        fc.asyncProperty(
          texts,
          fc.integer({ min: 1, max: 7 }),
          fc.integer({ min: 0, max: 400 }),
          async (prompts, maxRequests, slack) => {
            const dir = join(work, `${format}-${calls++}`);
            const lines = prompts.map((prompt, index) =>
              JSON.stringify({ custom_id: `r${index}`, prompt }),
            );
            const largest = Math.max(...lines.map((line) => Buffer.byteLength(line)));
            // Room for the largest request and its framing, plus some: every request fits a file.
            const maxBytes = largest + 20 + slack;
            const writer = new RequestFileWriter(dir, format, { maxRequests, maxBytes });
            mkdirSync(dir);
            for (const [index, line] of lines.entries()) {
              await writer.write(`r${index}`, line, Buffer.byteLength(line), index + 1);
            }
            const files = await writer.close();
            const names = readdirSync(dir).sort();
            expect(names).toEqual(files.map((file) => file.path.slice(dir.length + 1)));
            const read = files.flatMap((file) => {
              const text = readFileSync(file.path, "utf8");
              expect(statSync(file.path).size).toBe(file.bytes);
              expect(file.bytes).toBeLessThanOrEqual(maxBytes);
              const requests =
                format === "anthropic-batch"
                  ? JSON.parse(text).requests
                  : text
                      .trimEnd()
                      .split("\n")
                      .map((line) => JSON.parse(line));
              expect(requests.length).toBe(file.requests);
              expect(requests.length).toBeLessThanOrEqual(maxRequests);
              return requests;
            });
            expect(read).toEqual(lines.map((line) => JSON.parse(line)));
          },
        ),
        { numRuns: RUNS },
      );
    },
  );
});
