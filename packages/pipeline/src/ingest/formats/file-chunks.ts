import type { FileHandle } from "node:fs/promises";

/**
 * A file's bytes from its start, in chunks of their own memory (a consumer may keep one
 * while the next is read), each shown to `onRead` first: what a run hashes and counts as
 * progress are the file's bytes as stored, compressed or not.
 */
export async function* fileChunks(
  handle: FileHandle,
  onRead: ((bytes: Uint8Array) => void) | undefined,
  chunkBytes = 128 << 10,
): AsyncGenerator<Uint8Array> {
  // Positioned reads: a handle shared by several readers is read from its start by each.
  let position = 0;
  for (;;) {
    const buffer = Buffer.allocUnsafe(chunkBytes);
    const { bytesRead } = await handle.read(buffer, 0, chunkBytes, position);
    if (bytesRead === 0) return;
    position += bytesRead;
    const chunk = buffer.subarray(0, bytesRead);
    onRead?.(chunk);
    yield chunk;
  }
}
