/** A share with its counts, so a reader sees how many cases a rate stands on. */
export interface Rate {
  count: number;
  /** Cases the rate is over; unknown cases are left out, never counted as failures. */
  of: number;
  /** count / of; null when `of` is 0. */
  rate: number | null;
}

export function rateOf(count: number, of: number): Rate {
  return { count, of, rate: of === 0 ? null : count / of };
}
