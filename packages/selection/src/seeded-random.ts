import { seededRandom as mulberry32 } from "@assay/core/stats";

/**
 * A seeded generator of numbers in [0, 1) for a text key: FNV-1a hashes the key into a
 * 32-bit seed for core's mulberry32. The pivots of a stored run must come out the same
 * after any upgrade, so both are our own few lines, never a library's generator (which may
 * change between major versions); test/seeded-random.test.ts pins the sequence.
 */
export function seededRandom(key: string): () => number {
  return mulberry32(fnv1a(key));
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
