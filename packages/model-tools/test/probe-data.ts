import type { Sample } from "@assay/core";

const WORDS = [
  "the",
  "river",
  "stone",
  "seven",
  "blue",
  "quickly",
  "under",
  "garden",
  "light",
  "paper",
  "north",
  "music",
  "table",
  "window",
  "cloud",
  "simple",
];

/**
 * `count` labelled answers of 4..9 common words; the label is whether the answer contains
 * the word "banana" (at a random place). A property any text model's hidden state can see.
 */
export function bananaSamples(count: number, seed = 1): Sample[] {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((state / 2 ** 31) * n);
  };
  return Array.from({ length: count }, (_, i) => {
    const words = Array.from({ length: 4 + next(6) }, () => WORDS[next(WORDS.length)] ?? "the");
    const label = i % 2 === 0;
    if (label) words.splice(next(words.length + 1), 0, "banana");
    return {
      id: `s${i}`,
      taskId: `t${i}`,
      candidateIndex: 0,
      question: "Name a fruit you like.",
      answer: words.join(" "),
      label,
      metadata: {},
      line: i + 1,
    };
  });
}
