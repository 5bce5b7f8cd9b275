/**
 * A seeded generator of uniform numbers in [0, 1) (mulberry32: 32-bit state, period 2^32).
 * Reports use it so the same runs and the same seed always print the same interval;
 * `Math.random` cannot be seeded. Not for anything that needs unpredictability. The one
 * generator of the code base: the selection's pivots (keyed by text) and the tiny models'
 * weights draw from it too, so its sequence must never change (selection's
 * test/seeded-random.test.ts pins it).
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
