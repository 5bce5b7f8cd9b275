import { checkModel, fillerText } from "@assay/model-tools";
import { sample, tinyModel } from "@assay/test-support/tiny-models";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createVerifierScorer,
  distributionValue,
  fitPrompt,
  loadModel,
  ModelRunner,
  probeValue,
  resolvePrompt,
  type VerifierModel,
} from "../src/index.js";

const IM_END = 151_645;
const SCALE_IDS = [32, 33, 34, 35]; // "A".."D"

describe("the score position with a tokenizer that appends EOS", () => {
  let model: VerifierModel;
  let rows: number[][];
  beforeAll(async () => {
    model = await loadModel(await tinyModel({ specialTokens: "eos" }), { threads: 1 });
    rows = [12, 300, 40, 700].map((length, i) => {
      const prompt = resolvePrompt(
        model.config.template,
        { question: fillerText(model.tokenizer, length, i), answer: `answer ${i}`, metadata: {} },
        "",
      );
      if (!prompt.ok) throw new Error(prompt.message);
      const fit = fitPrompt(model.tokenizer, prompt.pieces, {
        maxLength: 2048,
        margin: 8,
        policy: "error",
      });
      if (!fit.ok) throw new Error(fit.message);
      return fit.ids;
    });
  });
  afterAll(() => model.close());

  /**
   * The state at the prompt's last token computed with nothing after it. A decoder attends
   * only backwards, so an appended EOS cannot change it: a head that reads the right
   * position gets exactly this; one that reads the EOS does not.
   */
  async function reference(output: string): Promise<Float32Array[]> {
    const { session, io, padId } = model.runner;
    const alone = new ModelRunner(session, io, "right", padId, 0);
    return Promise.all(
      rows.map(async (ids) => (await alone.run([ids.slice(0, -1)], output))[0] as Float32Array),
    );
  }

  it("ends every fitted row with the appended EOS", () => {
    expect(model.tokenizer.appendedTokens).toBe(1);
    for (const ids of rows) expect(ids.at(-1)).toBe(IM_END);
  });

  it.each(["left", "right"] as const)(
    "both heads read the prompt's last token, batched, with %s padding",
    async (side) => {
      const { session, io, padId } = model.runner;
      const runner = new ModelRunner(session, io, side, padId, model.tokenizer.appendedTokens);
      const probe = { probe: model.probe as Float32Array, bias: 0, sigmoid: true };
      const hidden = await runner.run(rows, "last_hidden_state");
      const expectedHidden = await reference("last_hidden_state");
      const logits = await runner.run(rows, "logits");
      const expectedLogits = await reference("logits");
      for (const i of rows.keys()) {
        const got = probeValue(probe, hidden[i] as Float32Array).value;
        const want = probeValue(probe, expectedHidden[i] as Float32Array).value;
        expect(Math.abs(got - want)).toBeLessThan(1e-5);
        const gotR = distributionValue(logits[i] as Float32Array, SCALE_IDS).value ?? Number.NaN;
        const wantR = distributionValue(expectedLogits[i] as Float32Array, SCALE_IDS).value ?? 0;
        expect(Math.abs(gotR - wantR)).toBeLessThan(1e-5);
      }
    },
  );

  it("scores through the scorer at the prompt's last token", async () => {
    const scorer = createVerifierScorer(model, { model: model.name });
    const expected = await reference("last_hidden_state");
    const probe = { probe: model.probe as Float32Array, bias: 0, sigmoid: true };
    const scores = await Promise.all(
      [12, 300, 40, 700].map((length, i) =>
        scorer(sample(fillerText(model.tokenizer, length, i), `answer ${i}`), {}),
      ),
    );
    for (const [i, score] of scores.entries()) {
      const want = probeValue(probe, expected[i] as Float32Array).value;
      expect(score.status === "scored" && Math.abs(score.value - want)).toBeLessThan(1e-5);
    }
  });

  it("`model check` names the token read and what the tokenizer appends", async () => {
    const rows = await checkModel(model, { lengths: [500, 2100] });
    const position = rows.filter((r) => r.check === "score position");
    expect(position).toHaveLength(2);
    for (const row of rows)
      expect(row, `${row.check} @ ${row.length}: ${row.detail}`).toMatchObject({ passed: true });
    // The tiny probe template ends with "Is this answer correct?": its "?" is read.
    for (const row of position) {
      expect(row.detail).toMatch(/^reads token (\d+) of \d+: id \d+ "\?", the prompt's last/);
      expect(row.detail).toContain(
        `after it the tokenizer appends id ${IM_END} "<|im_end|>" (not read)`,
      );
    }
  });
});

describe("the score position with a [CLS] $A [SEP] tokenizer (encoder)", () => {
  it("`model check` passes and reads the token before the SEP", async () => {
    const rows = await checkModel(await tinyModel({ kind: "encoder", specialTokens: "cls-sep" }), {
      lengths: [500],
      threads: 1,
    });
    for (const row of rows)
      expect(row, `${row.check} @ ${row.length}: ${row.detail}`).toMatchObject({ passed: true });
    const row = rows.find((r) => r.check === "score position");
    expect(row?.detail).toMatch(
      /id \d+ "\?", the prompt's last; after it the tokenizer appends id 151645/,
    );
  });
});
