import type { ServiceState } from "./service-outage.js";

/** What the worker's consumer is doing. */
export type ConsumerState = "taking jobs" | "paused: Postgres is gone" | "stopping";

/** The worker's health as `/readyz` and `/livez` serve it. */
export interface WorkerHealth {
  /** Taking jobs, with every server it needs reachable. */
  ready: boolean;
  consumer: ConsumerState;
  /** Per server: "up", or "down for 12.3 s". */
  services: Record<string, string>;
}

export function workerHealth(consumer: ConsumerState, services: ServiceState[]): WorkerHealth {
  return {
    ready: consumer === "taking jobs" && services.every((s) => s.up),
    consumer,
    services: Object.fromEntries(
      services.map((s) => [
        s.service,
        s.up ? "up" : `down for ${s.currentDownSeconds.toFixed(1)} s`,
      ]),
    ),
  };
}
