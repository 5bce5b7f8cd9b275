import { readFileSync } from "node:fs";
import type { Redis } from "ioredis";

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
