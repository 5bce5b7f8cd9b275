export interface GroupBatcherOptions {
  /** How long a partial batch waits for more groups, in ms. Default 2. */
  maxWaitMs?: number;
  /** Most tokens (over every sequence of every group) in one batch. Default 65,536. */
  maxTokens?: number;
}

type RunGroups<Out> = (groups: readonly (readonly (readonly number[])[])[]) => Promise<Out[]>;

interface Pending<Out> {
  sequences: readonly (readonly number[])[];
  tokens: number;
  resolve: (result: Out) => void;
  reject: (error: unknown) => void;
}

/**
 * Groups concurrent requests that must stay whole (the prompts of one sample, which share
 * prefixes) into one run: one run at a time; the next takes pending groups in arrival
 * order up to `maxTokens` (a group larger than that runs alone); a partial batch waits at
 * most `maxWaitMs`. A group's result depends only on its own sequences.
 */
export class GroupBatcher<Out> {
  readonly #run: RunGroups<Out>;
  readonly #options: GroupBatcherOptions;
  #pending: Pending<Out>[] = [];
  #running = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(run: RunGroups<Out>, options: GroupBatcherOptions = {}) {
    this.#run = run;
    this.#options = options;
  }

  submit(sequences: readonly (readonly number[])[]): Promise<Out> {
    const tokens = sequences.reduce((sum, s) => sum + s.length, 0);
    return new Promise((resolve, reject) => {
      this.#pending.push({ sequences, tokens, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#running || this.#timer !== undefined || this.#pending.length === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#runNext();
    }, this.#options.maxWaitMs ?? 2);
  }

  async #runNext(): Promise<void> {
    if (this.#running || this.#pending.length === 0) return;
    this.#running = true;
    const budget = this.#options.maxTokens ?? 65_536;
    let tokens = 0;
    let size = 0;
    for (const p of this.#pending) {
      if (size > 0 && tokens + p.tokens > budget) break;
      tokens += p.tokens;
      size += 1;
    }
    const batch = this.#pending.splice(0, size);
    try {
      const outputs = await this.#run(batch.map((p) => p.sequences));
      batch.forEach((p, i) => {
        p.resolve(outputs[i] as Out);
      });
    } catch (error) {
      for (const p of batch) p.reject(error);
    } finally {
      this.#running = false;
      // Groups that arrived during the run already waited: run them without a deadline.
      if (this.#pending.length > 0) void this.#runNext();
    }
  }
}
