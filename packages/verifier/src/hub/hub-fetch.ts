import { setTimeout as sleep } from "node:timers/promises";
import type { HubEndpoint } from "./hub-endpoint.js";

/**
 * Answers of a busy Hub (or of a proxy in front of it), worth asking again: too many
 * requests, and the gateway or service being unavailable for now. A 500 is a fault, not load.
 */
const BUSY = new Set([429, 502, 503, 504]);
/** The longest wait between two tries when the Hub gives no Retry-After. */
const MAX_BACKOFF_MS = 30_000;

/** How long one model's load may spend waiting on a busy Hub, in all. */
export interface RetryBudget {
  seconds: number;
  /** Where the budget was set, for the final message: `ASSAY_HUB_RETRY_WAIT`, an option. */
  from: string;
}

/** The Hub stayed busy until the load's wait budget ran out (or its Retry-After exceeds it). */
export class HubBusy extends Error {
  override name = "HubBusy";

  constructor(
    readonly status: number,
    readonly url: string,
    readonly tries: number,
    readonly waitedMs: number,
    /** What the last answer's Retry-After asked for, when it asked more than was left. */
    readonly askedMs: number | null,
    readonly budget: RetryBudget,
  ) {
    super(`the Hub answered ${status} to ${tries} tries of ${url}`);
  }
}

/**
 * The `fetch` every @huggingface/hub call of one model's load is given (its `fetch`
 * option: the library has no retries of its own). It sends the endpoint's credentials to
 * the endpoint's origin, and asks again after a busy answer: after the Retry-After the Hub
 * gives (seconds or a date; at least the first backoff), else after a backoff that doubles
 * from 1 s (a tenth of the budget when that is less) up to 30 s, ±25% so that many workers
 * do not ask in step. The waits of the whole load share one budget; past it, or when a
 * Retry-After asks for more than is left, the request fails with `HubBusy`.
 */
export class HubFetch {
  #waitedMs = 0;
  #busy: HubBusy | null = null;

  constructor(
    readonly endpoint: HubEndpoint,
    readonly budget: RetryBudget,
  ) {}

  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    const request = this.#withCredentials(url, init);
    const budgetMs = this.budget.seconds * 1000;
    for (let tries = 1; ; tries += 1) {
      const response = await fetch(input, request);
      if (!BUSY.has(response.status)) return response;
      await response.body?.cancel();
      const asked = retryAfterMs(response.headers.get("retry-after"));
      const wait = asked === null ? this.#backoffMs(tries) : Math.max(asked, this.#baseMs());
      if (budgetMs === 0 || this.#waitedMs + wait > budgetMs) {
        const over = asked !== null && asked > budgetMs - this.#waitedMs ? asked : null;
        const path = new URL(url).pathname;
        this.#busy = new HubBusy(response.status, path, tries, this.#waitedMs, over, this.budget);
        throw this.#busy;
      }
      this.#waitedMs += wait;
      await sleep(wait);
    }
  };

  /**
   * The give-up a request of this load ended with, once: a file's body is streamed by a blob
   * that passes on only the message of an error, so the download asks here what it was.
   */
  takeBusy(): HubBusy | null {
    const busy = this.#busy;
    this.#busy = null;
    return busy;
  }

  #withCredentials(url: string, init: RequestInit | undefined): RequestInit | undefined {
    const { basicAuth, origin } = this.endpoint;
    if (basicAuth === undefined || new URL(url).origin !== origin) return init;
    const headers = new Headers(init?.headers);
    if (!headers.has("authorization")) headers.set("authorization", basicAuth);
    return { ...init, headers };
  }

  #baseMs(): number {
    return Math.min(1000, (this.budget.seconds * 1000) / 10);
  }

  #backoffMs(tries: number): number {
    const wait = Math.min(MAX_BACKOFF_MS, this.#baseMs() * 2 ** (tries - 1));
    return wait * (0.75 + Math.random() / 2);
  }
}

/** A Retry-After header in milliseconds from now: delay-seconds or an HTTP date; else null. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null) return null;
  const text = header.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
