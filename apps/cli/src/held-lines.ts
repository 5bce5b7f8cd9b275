/**
 * Lines held back until `release`, then written as they come. A run's verifier settings are
 * known when the spec check loads the model, but a run the check refuses should print its
 * one-line refusal alone.
 */
export class HeldLines {
  #held: string[] | null = [];

  constructor(private readonly write: (line: string) => void) {}

  add(line: string): void {
    if (this.#held === null) this.write(line);
    else this.#held.push(line);
  }

  release(): void {
    for (const line of this.#held ?? []) this.write(line);
    this.#held = null;
  }
}
