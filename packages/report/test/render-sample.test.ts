import type { SampleView } from "@assay/core";
import { describe, expect, it } from "vitest";
import { renderSampleView } from "../src/index.js";

const VIEW: SampleView = {
  sample: {
    runId: "night-2",
    sampleId: "t7#1",
    taskId: "t7",
    candidateIndex: 1,
    label: false,
    line: 7,
    metadata: { kind: "open" },
    generator: {
      role: "generator",
      model: "gen-a",
      inputTokens: 120,
      cachedInputTokens: 100,
      cacheWriteTokens: 40,
      outputTokens: 30,
      computeMs: null,
      device: null,
    },
    scores: [
      {
        scorer: "judge",
        criterion: "",
        repetition: 0,
        rule: "open-ended",
        status: "scored",
        value: 0.25,
        reason: null,
        detail: { head: "distribution" },
        truncations: [
          {
            criterion: "correct",
            variant: 0,
            originalTokens: 5000,
            keptTokens: 2040,
            droppedTokens: 2960,
            slot: "question",
            policy: "error",
          },
          {
            criterion: "complete",
            variant: 0,
            originalTokens: 400,
            keptTokens: 400,
            droppedTokens: 0,
            slot: "",
            policy: "error",
          },
        ],
        usage: {
          role: "verifier",
          model: "judge-0.6b",
          inputTokens: 2440,
          cachedInputTokens: 0,
          cacheWriteTokens: 0,
          outputTokens: 0,
          computeMs: 12.5,
          device: "cuda:0",
        },
      },
      {
        scorer: "exact",
        criterion: "",
        repetition: 0,
        rule: "short-answer",
        status: "unscored",
        value: null,
        reason: "invalid_target",
        detail: null,
        truncations: [],
        usage: null,
      },
    ],
  },
  dataset: {
    path: "data/night-2.jsonl",
    line: 7,
    status: "ok",
    message: null,
    question: "Why?\nExplain.",
    answer: "Because.",
    target: ["because"],
    steps: ["First.", "Then."],
  },
};

describe("one sample for a terminal", () => {
  const text = renderSampleView(VIEW);

  it("says where the sample came from, then its text, indented", () => {
    expect(text).toContain("Sample t7#1 of run night-2 (task t7, candidate 1, label false)");
    expect(text).toContain("dataset   data/night-2.jsonl, line 7\n");
    expect(text).toContain("generator gen-a: 120 in (100 cached, 40 written to cache), 30 out");
    const generator = { ...VIEW.sample.generator, cacheWrite1hTokens: 10 } as never;
    expect(renderSampleView({ ...VIEW, sample: { ...VIEW.sample, generator } })).toContain(
      "120 in (100 cached, 40 written to cache, 10 of them for 1 hour), 30 out",
    );
    expect(text).toContain("  Why?\n  Explain.\n");
    expect(text).toContain("\n\nAnswer\n  Because.");
    expect(text).toContain('Target    ["because"]');
    expect(text).toContain("Steps (2)\n  1. First.\n  2. Then.");
  });

  it("lists every score with its rule, reason, each prompt's fit and the usage", () => {
    expect(text).toMatch(
      /judge\s+│ open-ended\s+│ scored\s+│\s+0\.2500 │\s+│ correct #0: 5000 → 2040 tokens \(question cut 2960, policy error\) │ judge-0\.6b: 2440 in, 0 out, 12\.5 ms on cuda:0/,
    );
    expect(text).toMatch(/│\s+│ complete #0: 400 tokens, not cut\s+│/);
    expect(text).toMatch(/exact\s+│ short-answer │ unscored │\s+│ invalid_target │ -/);
    expect(text).toContain('Detail\n  judge: {"head":"distribution"}');
  });

  it("puts the reason in front when the text cannot be shown, or may differ", () => {
    const gone = renderSampleView({
      ...VIEW,
      dataset: {
        path: "data/night-2.jsonl",
        line: 7,
        status: "missing",
        message: "cannot read data/night-2.jsonl: no such file",
      },
    });
    expect(gone).toContain("  NOT SHOWN: cannot read data/night-2.jsonl: no such file");
    expect(gone).not.toContain("Question");
    expect(gone).toContain("Scores (2)");
    const modified = renderSampleView({
      ...VIEW,
      dataset: { ...VIEW.dataset, status: "modified", message: "modified after the run" },
    });
    expect(modified).toContain("  WARNING: modified after the run\n");
    expect(modified).toContain("Answer\n  Because.");
  });
});

describe("a refused verifier call in one sample", () => {
  it("reads as refused, not as a cut that kept nothing", () => {
    const [judge] = VIEW.sample.scores;
    const refused = {
      ...VIEW,
      sample: {
        ...VIEW.sample,
        scores: [
          {
            ...(judge as (typeof VIEW.sample.scores)[number]),
            status: "unscored" as const,
            value: null,
            reason: "overflow",
            truncations: [
              {
                criterion: "",
                variant: 0,
                originalTokens: 9000,
                keptTokens: 0,
                droppedTokens: 9000,
                slot: "answer",
                policy: "error",
              },
            ],
          },
        ],
      },
    };
    const text = renderSampleView(refused);
    expect(text).toContain("9000 tokens, refused: did not fit");
    expect(text).not.toContain("answer cut 9000");
  });
});

/** A verifier score whose two prompts cut the question, as the verifier's detail records it. */
function cutView(
  question: string,
  slotCuts: ({ keptChars: number; droppedTokens: number } | null)[],
) {
  const records = slotCuts.map((cut, variant) => ({
    criterion: "correct",
    variant,
    originalTokens: 900,
    keptTokens: 512,
    droppedTokens: 388,
    slot: "question",
    policy: "error",
    droppedSlots: ["examples"],
    ...(cut !== null && { slotCut: { ...cut, keptTokens: 14 } }),
  }));
  const [judge] = VIEW.sample.scores;
  return {
    ...VIEW,
    sample: {
      ...VIEW.sample,
      scores: [
        {
          ...(judge as (typeof VIEW.sample.scores)[number]),
          detail: { head: "distribution", truncations: records },
          truncations: records.map(({ droppedSlots: _, slotCut: __, ...row }) => row),
        },
      ],
    },
    dataset: { ...VIEW.dataset, question },
  };
}

describe("a sample whose question was cut to fit", () => {
  const question = "First line.\nThe verifier read up to here; the rest was cut.";
  const at = question.indexOf(";");

  it("marks the cut where it fell, with the prompt and the tokens cut", () => {
    const text = renderSampleView(cutView(question, [{ keptChars: at, droppedTokens: 312 }]));
    expect(text).toContain(
      "Question (cut to fit: marked where)\n  First line.\n  The verifier read up to here\n  [… 312 tokens cut for judge (correct #0): the verifier saw the text above …]\n  ; the rest was cut.",
    );
  });

  it("says what the verifier saw of the question and which pieces it left out", () => {
    const text = renderSampleView(cutView(question, [{ keptChars: at, droppedTokens: 312 }]));
    expect(text).toContain(
      `What the verifier saw\n  judge (correct #0): saw the first ${at} characters of the question (14 of 326 tokens; 312 cut); left out whole: examples`,
    );
  });

  it("marks each place where prompts cut differently, in order", () => {
    const text = renderSampleView(
      cutView(question, [
        { keptChars: at, droppedTokens: 312 },
        { keptChars: 5, droppedTokens: 330 },
      ]),
    );
    const first = text.indexOf("[… 330 tokens cut for judge (correct #1)");
    const second = text.indexOf("[… 312 tokens cut for judge (correct #0)");
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(first);
    expect(text).toContain("  First\n  [… 330 tokens");
  });

  it("says so when the run did not record where the cut fell", () => {
    const text = renderSampleView(cutView(question, [null]));
    expect(text).toContain(
      "  The verifier read up to here; the rest was cut.\n  [… end of the question cut for judge (correct #0): the prompt lost 388 tokens; this run did not record where the cut fell …]",
    );
  });
});
