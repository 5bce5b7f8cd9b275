/**
 * Runs synchronous jobs (tokenization, fit) one per event-loop turn, so a burst of
 * concurrent requests never holds the loop for longer than one job: timers and sockets
 * (BullMQ's lock renewal) get their turn in between.
 */
export class TurnQueue {
  #jobs: (() => void)[] = [];
  #scheduled = false;

  run<T>(job: () => T): Promise<T> {
    return new Promise((resolve, reject) => {
      this.#jobs.push(() => {
        try {
          resolve(job());
        } catch (error) {
          reject(error);
        }
      });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#jobs.length === 0) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#jobs.shift()?.();
      this.#schedule();
    });
  }
}
