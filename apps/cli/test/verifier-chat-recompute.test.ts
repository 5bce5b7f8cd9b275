import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeTinyModel } from "@assay/model-tools";
import { assayInProcess } from "@assay/test-support/assay-in-process";
import { Template } from "@huggingface/jinja";
import { Tokenizer } from "@huggingface/tokenizers";
import * as ort from "onnxruntime-node";
import { afterAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";

// The scores `assay export` gives for a chat verifier, recomputed without Assay's session,
// fit or chat code: the model's own chat template rendered with @huggingface/jinja, the
// tokenizer library, an onnxruntime session, and the softmax over the scale letters.
const work = mkdtempSync(join(tmpdir(), "assay-chat-recompute-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const SAMPLES = [
  { id: "a", question: "What is 2 + 2?", answer: "4" },
  { id: "b", question: "Name a prime number.", answer: "Nine is prime." },
  { id: "c", question: "Capital of France?", answer: "Paris, on the Seine." },
];

interface Piece {
  text?: string;
  slot?: string;
  message?: "system" | "user";
}

interface AssayJson {
  template: Piece[];
  criteria: { name: string; text: string }[];
  head: { scale: string[] };
  chat: { options: Record<string, unknown>; assistant_prefix: string };
}

/** The prompt as `apply_chat_template(messages, add_generation_prompt=True)` writes it. */
function render(
  config: Record<string, unknown>,
  assay: AssayJson,
  pieces: Piece[],
  slots: Record<string, string>,
): string {
  const text = (p: Piece) => p.text ?? slots[p.slot ?? ""] ?? "";
  const system = pieces
    .filter((p) => p.message === "system")
    .map(text)
    .join("");
  const user = pieces
    .filter((p) => p.message !== "system")
    .map(text)
    .join("");
  const messages = [
    ...(system === "" ? [] : [{ role: "system", content: system }]),
    { role: "user", content: user },
  ];
  const template = new Template(config.chat_template as string);
  return (
    template.render({
      bos_token: config.bos_token,
      eos_token: config.eos_token,
      ...assay.chat.options,
      messages,
      add_generation_prompt: true,
    }) + assay.chat.assistant_prefix
  );
}

/** The expected level (0 worst, 1 best) under the softmax of the last position's logits. */
async function scoreOf(
  session: ort.InferenceSession,
  tokenizer: Tokenizer,
  prompt: string,
  scaleIds: number[],
): Promise<number> {
  const ids: number[] = tokenizer.encode(prompt, { add_special_tokens: false }).ids;
  const n = ids.length;
  const tensor = (values: number[]) =>
    new ort.Tensor("int64", BigInt64Array.from(values.map(BigInt)), [1, n]);
  const out = await session.run({
    input_ids: tensor(ids),
    attention_mask: tensor(ids.map(() => 1)),
    position_ids: tensor(ids.map((_, i) => i)),
  });
  const logits = out.logits as ort.Tensor;
  const vocab = logits.dims[2] as number;
  const row = Array.from((logits.data as Float32Array).subarray((n - 1) * vocab, n * vocab));
  const max = Math.max(...row);
  const sum = row.reduce((acc, l) => acc + Math.exp(l - max), 0);
  const p = scaleIds.map((id) => Math.exp((row[id] as number) - max) / sum);
  const mass = p.reduce((a, b) => a + b, 0);
  return p.reduce((acc, pi, g) => acc + (pi / mass) * (g / (p.length - 1)), 0);
}

describe("a chat verifier's exported scores", () => {
  it("equal the scores recomputed from the model's template, tokenizer and graph alone", async () => {
    const dir = await makeTinyModel(join(work, "qwen3"), {
      kind: "decoder",
      head: "distribution",
      chat: "qwen3",
    });
    writeFileSync(
      join(work, "data.jsonl"),
      `${SAMPLES.map((s) => JSON.stringify(s)).join("\n")}\n`,
    );
    writeFileSync(
      join(work, "spec.yaml"),
      `default:\n  scorers:\n    - { name: verifier, args: { model: ${JSON.stringify(dir)} } }\n`,
    );
    const store = join(work, "store");
    const run = await assayInProcess(
      ["run", "data.jsonl", "--spec", "spec.yaml", "--db", store, "--run-id", "chat", "--json"],
      { cwd: work },
    );
    expect(run.code, run.stderr).toBe(ExitCode.ok);
    const exported = await assayInProcess(["export", "chat", "--db", store], { cwd: work });
    expect(exported.code, exported.stderr).toBe(ExitCode.ok);
    const rows = exported.stdout
      .trim()
      .split("\n")
      .map(
        (line) =>
          JSON.parse(line) as {
            sample_id: string;
            value: number | null;
            detail: string | { criteria: { variants: { value: number }[] }[] };
          },
      );

    const assay = JSON.parse(readFileSync(join(dir, "assay.json"), "utf8")) as AssayJson;
    const config = JSON.parse(readFileSync(join(dir, "tokenizer_config.json"), "utf8"));
    const tokenizer = new Tokenizer(
      JSON.parse(readFileSync(join(dir, "tokenizer.json"), "utf8")),
      config,
    );
    const scaleIds = assay.head.scale.map((level) => {
      const ids = tokenizer.encode(level, { add_special_tokens: false }).ids;
      expect(ids).toHaveLength(1);
      return ids[0] as number;
    });
    const session = await ort.InferenceSession.create(join(dir, "onnx", "model.onnx"));
    // The spec asks for no prompt variants: each criterion is scored with `template` alone.
    const prompts = [assay.template];
    expect(rows).toHaveLength(SAMPLES.length);
    for (const sample of SAMPLES) {
      const values: number[] = [];
      for (const criterion of assay.criteria) {
        for (const pieces of prompts) {
          const prompt = render(config, assay, pieces, {
            question: sample.question,
            answer: sample.answer,
            criterion: criterion.text,
          });
          values.push(await scoreOf(session, tokenizer, prompt, scaleIds));
        }
      }
      const expected = values.reduce((a, b) => a + b, 0) / values.length;
      const row = rows.find((r) => r.sample_id === sample.id);
      expect(row, JSON.stringify(rows[0])).toBeDefined();
      const detail = typeof row?.detail === "string" ? JSON.parse(row.detail) : row?.detail;
      const stored = detail.criteria.flatMap((c: { variants: { value: number }[] }) =>
        c.variants.map((v) => v.value),
      );
      expect(
        stored.map((v: number, i: number) => Math.abs(v - (values[i] as number)) < 1e-5),
      ).toEqual(values.map(() => true));
      expect(row?.value).toBeCloseTo(expected, 5);
    }
    await session.release();
  });
});
