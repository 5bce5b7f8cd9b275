import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { CHAT_FAMILIES } from "@assay/core/chat-families";
import { expect, test } from "vitest";

// The Python script that writes the chat fixtures cannot import the TypeScript list, so it
// keeps a copy: a family added to one and not the other would go untested on its template.
test("the chat fixtures' generator covers exactly the chat families of @assay/core", async () => {
  const script = await readFile(
    join(import.meta.dirname, "fixtures/chat/make-fixtures.py"),
    "utf8",
  );
  const line = script.match(/^FAMILIES = (\[.*\])$/m);
  expect(line, "make-fixtures.py has no `FAMILIES = [...]` line").not.toBeNull();
  expect(JSON.parse(line?.[1] ?? "[]")).toEqual([...CHAT_FAMILIES]);
});
