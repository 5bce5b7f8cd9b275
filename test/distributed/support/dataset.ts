import { writeFileSync } from "node:fs";

/**
 * `count` generated samples a default-spec run scores with `exact` and `f1` (string
 * targets), so each sample plans two results. Every tenth answer is wrong on purpose.
 */
export function writeTextDataset(file: string, count: number): void {
  const lines: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const target = `answer ${i}`;
    lines.push(
      JSON.stringify({
        id: `s${i}`,
        question: `question ${i}?`,
        answer: i % 10 === 0 ? "no idea" : target,
        target,
      }),
    );
  }
  writeFileSync(file, `${lines.join("\n")}\n`);
}
