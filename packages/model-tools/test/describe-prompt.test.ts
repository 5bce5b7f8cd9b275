import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { tempRoot, tinyModel } from "@assay/test-support/tiny-models";
import { loadModel } from "@assay/verifier";
import { describe, expect, it } from "vitest";
import { checkModel, describePrompt } from "../src/index.js";

async function view(dir: string) {
  const model = await loadModel(dir);
  try {
    return await describePrompt(model);
  } finally {
    await model.close();
  }
}

/** A copy of `dir` with `edit` applied to one of its JSON files. */
async function edited(
  dir: string,
  name: string,
  file: string,
  edit: (json: Record<string, unknown>) => void,
) {
  const copy = join(tempRoot, name);
  await cp(dir, copy, { recursive: true });
  const json = JSON.parse(await readFile(join(copy, file), "utf8"));
  edit(json);
  await writeFile(join(copy, file), JSON.stringify(json));
  return copy;
}

describe("model check shows the prompt in the model's template", () => {
  it("shows role markers, reads the score after the assistant prefix, and names what the template writes after the answer", async () => {
    const shown = await view(await tinyModel({ chat: "qwen3", head: "distribution" }));
    expect(shown.chat).toBe(true);
    expect(shown.shown).toContain("«<|im_start|>»system\n");
    expect(shown.shown).toContain(
      "«<|im_end|>»\n«<|im_start|>»assistant\n<think>\n\n</think>\n\nScore:",
    );
    expect(shown.shown.endsWith("Score:")).toBe(true);
    expect([shown.scoreToken, shown.position]).toEqual([":", shown.tokens]);
    expect(shown.after).toEqual(["<|im_end|>", "\n"]);
    expect(shown.warnings).toEqual([]);
  });

  it("shows plain prompts as they are, the score at the text's last token", async () => {
    const shown = await view(await tinyModel({ specialTokens: "eos" }));
    expect(shown.chat).toBe(false);
    expect(shown.shown).not.toContain("«");
    expect(shown.scoreToken).toBe("?");
    expect(shown.after).toEqual(["<|im_end|>"]);
    expect(shown.warnings).toEqual([]);
  });

  it("warns when a chat model is prompted without its template", async () => {
    const dir = await edited(await tinyModel({ chat: "llama3" }), "chat-off", "assay.json", (a) => {
      a.chat = { enabled: false };
    });
    const shown = await view(dir);
    expect(shown.chat).toBe(false);
    expect(shown.warnings).toHaveLength(1);
    expect(shown.warnings[0]).toContain('"enabled": false');
  });

  it("warns when a base model is prompted with a chat template", async () => {
    const dir = await edited(
      await tinyModel({ chat: "qwen3" }),
      "chat-base",
      "config.json",
      (c) => {
        c._name_or_path = "Qwen/Qwen3-0.6B-Base";
      },
    );
    const shown = await view(dir);
    expect(shown.warnings).toHaveLength(1);
    expect(shown.warnings[0]).toContain("Qwen/Qwen3-0.6B-Base looks like a base model");
  });

  it("passes the fitting checks through the chat template, inside and past the window", async () => {
    const rows = await checkModel(await tinyModel({ chat: "qwen3", head: "distribution" }), {
      lengths: [300, 2100],
    });
    expect(rows.filter((r) => !r.passed)).toEqual([]);
    expect(rows.find((r) => r.check === "fit untouched" && r.length === 2100)?.detail).toContain(
      "only the question's tail was cut",
    );
  });
});
