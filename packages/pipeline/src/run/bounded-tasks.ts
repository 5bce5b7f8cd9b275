/**
 * At most `limit` tasks running at once. `add` waits for room, so a caller that adds in a
 * loop never runs further ahead than `limit` tasks: memory stays bounded however many it
 * adds. The first task to fail makes the next `add` or `settle` throw its error; the
 * others are left to finish, so nothing is still running when the caller gives up.
 */
export class BoundedTasks {
  readonly #limit: number;
  readonly #running = new Set<Promise<void>>();
  #failure: { error: unknown } | undefined;

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`Expected \`limit\` to be an integer from 1 and up, got ${limit}`);
    }
    this.#limit = limit;
  }

  /** Starts `task` once fewer than `limit` run; throws the first failure so far. */
  async add(task: () => Promise<void>): Promise<void> {
    while (this.#running.size >= this.#limit) await Promise.race(this.#running);
    this.#throwFailure();
    const running: Promise<void> = task()
      .catch((error: unknown) => {
        this.#failure ??= { error };
      })
      .finally(() => this.#running.delete(running));
    this.#running.add(running);
  }

  /** Waits for every task; throws the first failure. */
  async settle(): Promise<void> {
    while (this.#running.size > 0) await Promise.race(this.#running);
    this.#throwFailure();
  }

  #throwFailure(): void {
    if (this.#failure !== undefined) throw this.#failure.error;
  }
}
