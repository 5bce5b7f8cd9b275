/**
 * A seeded generator of numbers in [0, 1): FNV-1a hashes the key into a 32-bit state and
 * mulberry32 steps it. Written out rather than imported because the pivots of a stored run
 * must come out the same after any dependency upgrade: these few lines are the whole
 * contract, and a library's generator may change between major versions.
 */
export function seededRandom(key: string): () => number {
  let state = fnv1a(key);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
