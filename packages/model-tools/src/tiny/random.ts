import { seededRandom } from "@assay/core/stats";

/** A seeded generator of normal floats (core's mulberry32 + Box–Muller): same seed, same weights. */
export function seededNormal(seed: number): () => number {
  const uniform = seededRandom(seed);
  return () => {
    const u = Math.max(uniform(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * uniform());
  };
}

export function normalArray(next: () => number, length: number, scale: number): Float32Array {
  const out = new Float32Array(length);
  for (let i = 0; i < length; i++) out[i] = next() * scale;
  return out;
}
