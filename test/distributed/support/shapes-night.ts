import { writeFileSync } from "node:fs";
import { join } from "node:path";

const WORDS = ["river", "stone", "cloud", "ember", "falcon", "maple", "quartz", "harbor"];

/** The files of one night: a dataset, the spec that scores it and the table that prices it. */
export interface ShapesNight {
  dataset: string;
  spec: string;
  prices: string;
  /** Samples the dataset's valid lines make (each candidate is one). */
  samples: number;
}

/**
 * A night with every kind of work a run does: tasks of two or three candidates, short
 * answers scored by `exact` and `f1` (which also decide correctness) and open answers
 * with labels, all ranked by the verifier and judged in pairs for a pivot tournament; the
 * generators' tokens and a price table for them and the verifier (named as the spec
 * spells it, as docs/cli.md says to); and lines that are input errors (malformed JSON, a
 * field of the wrong type, a duplicate id), one of them late in the file. No two
 * candidates of a task share an answer, so no pick rests on an exact tie.
 */
export function writeShapesNight(dir: string, tasks: number, model: string): ShapesNight {
  const lines: string[] = [];
  let samples = 0;
  const open = { label: true, metadata: { kind: "open" } };
  for (let task = 0; task < tasks; task += 1) {
    const short = task % 2 === 0;
    const count = short || task % 3 !== 0 ? 2 : 3;
    const target = `${WORDS[task % WORDS.length]} ${task}`;
    const candidates = Array.from({ length: count }, (_, index) => {
      const right = (task + index) % 3 === 0;
      return {
        answer: right ? target : `${WORDS[(task + index + 3) % WORDS.length]} ${task * 7 + index}`,
        ...(!short && { label: right }),
        generator: {
          model: index % 2 === 0 ? "gen-a" : "gen-b",
          input_tokens: 40 + (task % 9),
          output_tokens: 3 + index,
        },
      };
    });
    samples += count;
    lines.push(
      JSON.stringify({
        id: `t${task}`,
        question: `What is item ${task} of the ${WORDS[task % WORDS.length]} list?`,
        ...(short && { target: [target] }),
        candidates,
        metadata: { kind: short ? "short" : "open" },
      }),
    );
    if (task === 3) lines.push('{"id": "broken", "question": ');
    if (task === 40) lines.push(JSON.stringify({ id: "typed", question: 7, answer: "x" }));
    // A task of one answer, and later a line that gives its id again.
    if (task === 7 || task === tasks - 5) {
      lines.push(JSON.stringify({ id: "solo", question: "One?", answer: `one ${task}`, ...open }));
      if (task === 7) samples += 1;
    }
  }
  const dataset = join(dir, "night.jsonl");
  writeFileSync(dataset, `${lines.join("\n")}\n`);

  const verifier = `{ model: ${JSON.stringify(model)} }`;
  const spec = join(dir, "spec.yaml");
  writeFileSync(
    spec,
    [
      "name: shapes",
      "rules:",
      "  - name: short",
      "    when: { metadata.kind: short }",
      `    scorers: [{ name: exact }, { name: f1 }, { name: verifier, args: ${verifier} }]`,
      "  - name: open",
      "    when: { metadata.kind: open }",
      `    scorers: [{ name: verifier, args: ${verifier} }]`,
      "selection:",
      "  verifier: verifier",
      "  check: exact",
      "  method: pivot_tournament",
      "  k: 1",
      "  seed: 7",
      `  judge: { name: pairwise, key: judge, args: ${verifier} }`,
      "",
    ].join("\n"),
  );

  const prices = join(dir, "prices.yaml");
  writeFileSync(
    prices,
    [
      "currency: USD",
      "models:",
      "  gen-a: { input_per_million: 1, output_per_million: 2 }",
      "  gen-b: { input_per_million: 3, output_per_million: 4 }",
      `  ${JSON.stringify(model)}: { input_per_million: 0.5, cached_input_per_million: 0.1 }`,
      "",
    ].join("\n"),
  );
  return { dataset, spec, prices, samples };
}
