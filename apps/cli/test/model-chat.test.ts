import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { afterAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

const work = mkdtempSync(join(tmpdir(), "assay-cli-chat-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("assay model check on a chat model", () => {
  it("shows the prompt in the model's chat template and the token the score is read at", async () => {
    const dir = join(work, "qwen3-chat");
    const made = await assayInProcess([
      "model",
      "make-tiny",
      dir,
      "--chat",
      "qwen3",
      "--head",
      "distribution",
    ]);
    expect(made.code, made.stderr).toBe(ExitCode.ok);
    expect(made.stderr).toContain("qwen3 chat template");
    const check = await assayInProcess(["model", "check", dir, "--lengths", "300"]);
    expect(check.code, check.stderr).toBe(ExitCode.ok);
    expect(check.stdout).toContain("Prompt (the model's chat template, special tokens in «»)");
    expect(check.stdout).toContain("«<|im_start|>»assistant\n<think>\n\n</think>\n\nScore:▌\n");
    expect(check.stdout).toMatch(
      /Score read at token (\d+) of \1, ":": the assistant's answer starts next; after the answer the template writes "<\|im_end\|>", "\\n"/,
    );
    expect(check.stderr).not.toContain("Warning");

    // --json carries the same view, for scripts.
    const json = await assayInProcess(["model", "check", dir, "--lengths", "300", "--json"]);
    expect(json.code, json.stderr).toBe(ExitCode.ok);
    const { prompt, checks } = JSON.parse(json.stdout);
    expect(prompt.chat).toBe(true);
    expect(prompt.shown).toContain("«<|im_start|>»assistant\n<think>\n\n</think>\n\nScore:");
    expect(prompt.scoreToken).toBe(":");
    expect(prompt.position).toBe(prompt.tokens);
    expect(prompt.after).toEqual(["<|im_end|>", "\n"]);
    expect(checks.length).toBeGreaterThan(0);

    // The same model prompted as plain text: the check warns that its template is unused.
    const assay = JSON.parse(readFileSync(join(dir, "assay.json"), "utf8"));
    writeFileSync(join(dir, "assay.json"), JSON.stringify({ ...assay, chat: { enabled: false } }));
    const plain = await assayInProcess(["model", "check", dir, "--lengths", "300"]);
    expect(plain.stdout).toContain("Prompt (plain text, no chat template)");
    expect(plain.stderr).toContain("Warning: the model has a chat template");
  });

  it("shows the fixed date a Llama 3.2 template renders, and the date assay.json pins", async () => {
    const dir = join(work, "llama3.2-chat");
    const made = await assayInProcess(["model", "make-tiny", dir, "--chat", "llama3.2"]);
    expect(made.code, made.stderr).toBe(ExitCode.ok);
    const check = await assayInProcess(["model", "check", dir, "--lengths", "300"]);
    expect(check.code, check.stderr).toBe(ExitCode.ok);
    // The system header says the pinned day, not the day the check runs.
    expect(check.stdout).toContain(
      "«<|start_header_id|>»system«<|end_header_id|>»\n\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n",
    );
    expect(check.stdout).toContain("Template date: 2024-07-26");

    const assay = JSON.parse(readFileSync(join(dir, "assay.json"), "utf8"));
    writeFileSync(
      join(dir, "assay.json"),
      JSON.stringify({ ...assay, chat: { ...assay.chat, date: "2025-03-09" } }),
    );
    const json = await assayInProcess(["model", "check", dir, "--lengths", "300", "--json"]);
    expect(json.code, json.stderr).toBe(ExitCode.ok);
    const { prompt } = JSON.parse(json.stdout);
    expect(prompt.date).toBe("2025-03-09");
    expect(prompt.shown).toContain("Today Date: 09 Mar 2025\n");

    writeFileSync(
      join(dir, "assay.json"),
      JSON.stringify({ ...assay, chat: { ...assay.chat, date: "2025-02-30" } }),
    );
    const refused = await assayInProcess(["model", "check", dir, "--lengths", "300"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("chat.date");
    expect(refused.stderr).toContain("YYYY-MM-DD");
  });

  it("refuses a distribution head on a family whose letters the tiny logits lack", async () => {
    const made = await assayInProcess([
      "model",
      "make-tiny",
      join(work, "gemma"),
      "--chat",
      "gemma3",
      "--head",
      "distribution",
    ]);
    expect(made.code).toBe(ExitCode.usage);
    expect(made.stderr).toContain("--chat gemma3 takes a probe head");
  });
});
