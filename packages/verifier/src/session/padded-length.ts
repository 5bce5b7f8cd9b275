/**
 * The fewest tokens a forward pass has per row. onnxruntime's MatMul takes another kernel
 * for a single row (M = 1), whose sums round differently, so a one-token pass would score
 * a token unlike the same token in a wider pass. A pad token (masked) avoids it.
 */
export const MIN_PASS_WIDTH = 2;

/**
 * A prefix pass pads every row's past to the widest one, rounded up to a multiple of this.
 * A row's new tokens then sit at the same offset modulo 64 whatever the other rows' pasts:
 * onnxruntime's CPU kernels sum a row in vector lanes and blocks counted from its start, so
 * an offset that moved with the batch would round the row's attention differently.
 */
export const PAST_ALIGN = 64;

/**
 * The padded length of a batch of `rows`. Right-padded rows start at 0 in every batch, so
 * their scores do not depend on the batch, bit for bit; a left-padded row starts where the
 * longest row of its batch says, which moves its sums by rounding (within 1e-5, tested).
 */
export function paddedLength(rows: readonly (readonly number[])[]): number {
  return Math.max(MIN_PASS_WIDTH, ...rows.map((r) => r.length));
}

/** The past width of a prefix pass whose rows have pasts of `pastLengths`. */
export function alignedPastWidth(pastLengths: readonly number[]): number {
  return Math.ceil(Math.max(0, ...pastLengths) / PAST_ALIGN) * PAST_ALIGN;
}
