import { readFileSync } from "node:fs";

/** Resident memory now and its high-water mark so far, in MB (Linux /proc; 0 elsewhere). */
export interface MemoryNow {
  rssMb: number;
  peakMb: number;
}

export function memoryNow(): MemoryNow {
  let status = "";
  try {
    status = readFileSync("/proc/self/status", "utf8");
  } catch {
    return { rssMb: 0, peakMb: 0 };
  }
  const kb = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
  return { rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 };
}
