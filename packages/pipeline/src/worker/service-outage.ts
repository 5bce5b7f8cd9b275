import type { Logger } from "../logger.js";

/** A server the worker needs, as the metrics label it. */
export type ServiceName = "postgres" | "redis";

export interface ServiceOutageOptions {
  service: ServiceName;
  /** The server as log lines name it: "Redis at redis://queue:6379". */
  name: string;
  log: Logger;
  /** What the worker does while the server is gone, ending the first line. */
  meanwhile: string;
  /** What the worker does once it is back, ending the last line. */
  afterwards: string;
  /** While the server stays gone, its warning comes again at most this often. Default 30 s. */
  repeatMs?: number;
  /** The clock, in ms (tests). */
  now?: () => number;
}

/** A server's state for metrics and the health endpoint. */
export interface ServiceState {
  service: ServiceName;
  up: boolean;
  /** Outages since the worker started. */
  outages: number;
  /** Seconds the server was gone since the worker started, the current outage included. */
  downSeconds: number;
  /** Seconds the current outage has lasted; 0 while the server is up. */
  currentDownSeconds: number;
}

/**
 * One server's outages as an on-call engineer reads them: a warning when it is lost, the
 * same warning at most every `repeatMs` while it stays gone (with the failed attempts
 * since it went), and one line when it is back, with how long it was gone. Whatever
 * fails meanwhile is counted, not logged: a Redis that is down for 20 s is two or three
 * lines, not two stack traces a second.
 */
export class ServiceOutage {
  readonly service: ServiceName;
  readonly #options: ServiceOutageOptions;
  readonly #now: () => number;
  #downSince: number | undefined;
  #lastWarning = 0;
  #failures = 0;
  #outages = 0;
  #pastDownMs = 0;

  constructor(options: ServiceOutageOptions) {
    this.service = options.service;
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  get up(): boolean {
    return this.#downSince === undefined;
  }

  state(): ServiceState {
    const current = this.#downSince === undefined ? 0 : this.#now() - this.#downSince;
    return {
      service: this.service,
      up: this.up,
      outages: this.#outages,
      downSeconds: (this.#pastDownMs + current) / 1000,
      currentDownSeconds: current / 1000,
    };
  }

  /**
   * An attempt to reach the server failed for `reason`. The first failure starts an
   * outage (and returns true); later ones are counted, and warned about again once
   * `repeatMs` has passed since the last warning.
   */
  failed(reason: string): boolean {
    const { log, service, name } = this.#options;
    const now = this.#now();
    this.#failures += 1;
    if (this.#downSince === undefined) {
      this.#downSince = now;
      this.#failures = 1;
      this.#outages += 1;
      this.#lastWarning = now;
      log.warn({ service, reason }, `lost the connection to ${name}: ${this.#options.meanwhile}`);
      return true;
    }
    if (now - this.#lastWarning >= (this.#options.repeatMs ?? 30_000)) {
      this.#lastWarning = now;
      log.warn(
        { service, reason, failedAttempts: this.#failures, downSeconds: this.#seconds(now) },
        `${name} still unreachable after ${this.#seconds(now).toFixed(0)} s ` +
          `(${this.#failures} failed attempts): ${this.#options.meanwhile}`,
      );
    }
    return false;
  }

  /** The server answered: ends the outage, if there was one, with one line. */
  back(): void {
    if (this.#downSince === undefined) return;
    const { log, service, name } = this.#options;
    const now = this.#now();
    const seconds = this.#seconds(now);
    this.#pastDownMs += now - this.#downSince;
    this.#downSince = undefined;
    log.info(
      { service, downSeconds: seconds, failedAttempts: this.#failures },
      `${name} is back after ${seconds.toFixed(1)} s: ${this.#options.afterwards}`,
    );
  }

  #seconds(now: number): number {
    return (now - (this.#downSince ?? now)) / 1000;
  }
}
