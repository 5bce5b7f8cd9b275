/** A count seen at a moment (ms since the epoch, or any one clock). */
export interface CountAt {
  at: number;
  count: number;
}

/** Default span of the moving window: long enough to smooth batch writes, short enough to follow a slowdown. */
export const DEFAULT_WINDOW_MS = 10_000;

/**
 * The rate of a growing count over the last `windowMs`, measured from the first increase
 * seen: what the count already held when watching began (results of an earlier attempt,
 * rows stored while a producer was still reading) and the time before the first result
 * (a model loading) are never taken for speed.
 */
export class RateWindow {
  /** Samples from the window's start on; the first is the origin until the window moves. */
  #samples: CountAt[] = [];
  #first: CountAt | undefined;
  #origin: CountAt | undefined;
  #last: CountAt | undefined;

  constructor(readonly windowMs: number = DEFAULT_WINDOW_MS) {
    if (!(windowMs > 0)) throw new RangeError(`Expected windowMs above 0, got ${windowMs}`);
  }

  add(sample: CountAt): void {
    const last = this.#last;
    // A clock going back or a count going down (a store counted twice) is not progress.
    if (last !== undefined && (sample.at < last.at || sample.count < last.count)) return;
    this.#last = sample;
    if (this.#first === undefined) {
      this.#first = sample;
      return;
    }
    if (this.#origin === undefined) {
      if (sample.count > this.#first.count) {
        this.#origin = sample;
        this.#samples = [sample];
      }
      return;
    }
    this.#samples.push(sample);
    this.#dropBeforeWindow();
  }

  /** Per second over the window; undefined until two samples since the first result. */
  rate(): number | undefined {
    const start = this.#samples[0];
    const last = this.#last;
    if (start === undefined || last === undefined || last.at <= start.at) return undefined;
    return ((last.count - start.count) * 1000) / (last.at - start.at);
  }

  /** Per second from the first result to the last sample; undefined as `rate`. */
  meanRate(): number | undefined {
    const origin = this.#origin;
    const last = this.#last;
    if (origin === undefined || last === undefined || last.at <= origin.at) return undefined;
    return ((last.count - origin.count) * 1000) / (last.at - origin.at);
  }

  /** Counted since watching began (what was there at the first sample is left out). */
  gained(): number {
    if (this.#first === undefined || this.#last === undefined) return 0;
    return this.#last.count - this.#first.count;
  }

  // The window starts at the latest sample at least `windowMs` old, so it always spans
  // `windowMs` once there is that much history: sparse samples cannot shrink it to an
  // instant and make one burst look like a rate.
  #dropBeforeWindow(): void {
    const last = this.#last as CountAt;
    let keepFrom = 0;
    for (let i = 1; i < this.#samples.length; i += 1) {
      if ((this.#samples[i] as CountAt).at <= last.at - this.windowMs) keepFrom = i;
      else break;
    }
    if (keepFrom > 0) this.#samples = this.#samples.slice(keepFrom);
  }
}

/** Seconds left at `perSecond`; undefined when there is no rate to go by. Never negative. */
export function etaSeconds(remaining: number, perSecond: number | undefined): number | undefined {
  if (!(remaining > 0)) return 0;
  if (perSecond === undefined || !(perSecond > 0) || !Number.isFinite(perSecond)) return undefined;
  return remaining / perSecond;
}
