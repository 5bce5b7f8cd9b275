import { readFileSync } from "node:fs";
import type { Redis } from "ioredis";
import type pg from "pg";

/** Resident set size now (VmRSS) and at its peak so far (VmHWM) of a live process, in MB. */
export function rssMb(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(status)?.[1]);
  return { now: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

/** User plus system CPU time a live process has used, in ms (fields 14 and 15 of stat). */
export function cpuMs(pid: number): number {
  // The command name (field 2) may hold spaces; count fields from after its ")".
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticksPerMs = 100 / 1000; // USER_HZ is 100 on Linux
  return (Number(fields[11]) + Number(fields[12])) / ticksPerMs;
}

export interface RedisFigures {
  usedMemoryBytes: number;
  peakMemoryBytes: number;
  cpuMs: number;
  pid: number;
}

/** Memory (INFO memory) and CPU used so far (INFO cpu) of a Redis server. */
export async function redisFigures(redis: Redis): Promise<RedisFigures> {
  const info = await redis.info();
  const number = (name: string): number =>
    Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(info)?.[1]);
  return {
    usedMemoryBytes: number("used_memory"),
    peakMemoryBytes: number("used_memory_peak"),
    cpuMs: (number("used_cpu_user") + number("used_cpu_sys")) * 1000,
    pid: number("process_id"),
  };
}

/**
 * Samples Redis's used_memory every `everyMs` until stopped and keeps the peak; a peak
 * between two samples shows in Redis's own used_memory_peak, read at the end besides.
 */
export class RedisMemorySampler {
  peakBytes = 0;
  readonly #timer: NodeJS.Timeout;

  constructor(
    readonly redis: Redis,
    everyMs = 250,
  ) {
    this.#timer = setInterval(() => void this.sample(), everyMs);
  }

  async sample(): Promise<void> {
    try {
      const { usedMemoryBytes } = await redisFigures(this.redis);
      this.peakBytes = Math.max(this.peakBytes, usedMemoryBytes);
    } catch {
      // Redis is being stopped at the end of the phase.
    }
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

/**
 * CPU time of the Postgres backends serving connections named `applicationName`: sampled
 * every `everyMs` (a backend that exits keeps its last sample), summed at `totalMs()`.
 * Postgres here is local, so its backends' /proc entries are readable.
 */
export class PostgresCpuSampler {
  readonly #cpuOf = new Map<number, { first: number; last: number }>();
  readonly #timer: NodeJS.Timeout;
  #started = false;

  constructor(
    readonly client: pg.Client,
    readonly applicationName: string,
    everyMs = 250,
  ) {
    this.#timer = setInterval(() => void this.sample(), everyMs);
  }

  async sample(): Promise<void> {
    try {
      const { rows } = await this.client.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE application_name = $1",
        [this.applicationName],
      );
      for (const { pid } of rows) {
        const now = cpuMs(pid);
        const seen = this.#cpuOf.get(pid);
        // A backend there before the start counts from then; one opened later, all its CPU.
        const first = seen?.first ?? (this.#started ? 0 : now);
        this.#cpuOf.set(pid, { first, last: now });
      }
    } catch {
      // A backend gone between the query and the read; the next sample catches up.
    }
  }

  /** Takes the backends open now as the baseline; any opened later counts in full. */
  async start(): Promise<void> {
    await this.sample();
    this.#started = true;
  }

  /** CPU used since each backend was first seen, all backends together. */
  totalMs(): number {
    let total = 0;
    for (const { first, last } of this.#cpuOf.values()) total += last - first;
    return total;
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
