export interface ProbeHead {
  probe: Float32Array;
  bias: number;
  sigmoid: boolean;
}

export interface ProbeValue {
  /** hidden · probe + bias */
  raw: number;
  /** sigmoid(raw) when the head applies it, else raw. */
  value: number;
}

/** Reads the last real position's hidden state: a dot product with the probe. */
export function probeValue(head: ProbeHead, hidden: Float32Array): ProbeValue {
  let raw = head.bias;
  for (let i = 0; i < head.probe.length; i++) raw += (hidden[i] ?? 0) * (head.probe[i] ?? 0);
  return { raw, value: head.sigmoid ? 1 / (1 + Math.exp(-raw)) : raw };
}
