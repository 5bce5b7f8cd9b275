import { toParquet } from "@assay/test-support/dataset-renderings";
import { describe, expect, it } from "vitest";
import { type DatasetEvent, readDataset } from "../src/index.js";
import { decompressed } from "../src/ingest/formats/decompress.js";
import { tempFiles } from "./temp-files.js";

const files = tempFiles("assay-bounded-");

// Every input has a bound: what a few compressed bytes stand for is decoded as it is
// read, never all at once.

/**
 * A zstd frame of `blocks` RLE blocks of 128 KiB of `byte` each: 4 bytes a block, so
 * 16 KiB of it stand for 512 MiB. Built by hand after RFC 8878 (frame header with a
 * 128 KiB window, then block headers: last flag, type 1 = RLE, regenerated size).
 */
function zstdBomb(blocks: number, byte: number): Uint8Array {
  const header = [0x28, 0xb5, 0x2f, 0xfd, 0x00, (17 - 10) << 3];
  const out = new Uint8Array(header.length + 4 * blocks);
  out.set(header);
  for (let index = 0; index < blocks; index += 1) {
    const last = index === blocks - 1 ? 1 : 0;
    const value = last | (1 << 1) | (131072 << 3);
    const at = header.length + 4 * index;
    out.set([value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff, byte], at);
  }
  return out;
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

describe("bounded inputs", () => {
  it("zstd is decoded a little at a time: 16 KiB standing for 512 MiB never sit in memory", async () => {
    const before = process.memoryUsage().arrayBuffers;
    let peak = 0;
    let total = 0;
    for await (const piece of decompressed(once(zstdBomb(4096, 0x0a)), "zstd")) {
      total += piece.length;
      peak = Math.max(peak, process.memoryUsage().arrayBuffers - before);
      if (total >= 64 << 20) break;
    }
    // The decoded pieces came out (it is not refused), and what was held at any time was
    // a few MiB of them, not the 512 MiB the chunk stands for.
    expect(total).toBeGreaterThanOrEqual(64 << 20);
    expect(peak).toBeLessThan(48 << 20);
  });

  it("a CSV quote never closed names the row it starts on and how many lines it lost", async () => {
    const rows = ["id,question,answer", "1,a,x", '2,"b,x', "3,c,x", "4,d,x", "5,e,x"];
    const path = files.write("open-quote.csv", `${rows.join("\n")}\n`);
    const events: DatasetEvent[] = [];
    for await (const event of readDataset(path)) events.push(event);
    const samples = events.flatMap((event) => (event.kind === "samples" ? event.samples : []));
    const errors = events.flatMap((event) => (event.kind === "error" ? [event.error] : []));
    expect(samples.map((sample) => sample.id)).toEqual(["1"]);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.line).toBe(3);
    // Lines 3 to 6: the row with the open quote and the three after it.
    expect(errors[0]?.reason).toContain("the 4 lines from here to the end of the file");
  });

  it("a Parquet cell or row group obeys --max-line-bytes as a JSONL line does", async () => {
    const read = async (rowGroupSize: number, long: number) => {
      const rows = [
        { id: "1", question: "q", answer: "a" },
        { id: "2", question: "x".repeat(long), answer: "a" },
        { id: "3", question: "q", answer: "a" },
      ];
      const bytes = Buffer.from(toParquet(rows, { rowGroupSize }));
      const path = files.write(`long-${rowGroupSize}.parquet`, bytes);
      const events: DatasetEvent[] = [];
      for await (const event of readDataset(path, { maxLineBytes: 1000 })) events.push(event);
      return {
        ids: events.flatMap((event) => (event.kind === "samples" ? [event.samples[0]?.id] : [])),
        errors: events.flatMap((event) => (event.kind === "error" ? [event.error] : [])),
      };
    };
    // A row group of one long row is refused before it is decoded.
    const alone = await read(1, 50_000);
    expect(alone.ids).toEqual(["1", "3"]);
    expect(alone.errors.map((error) => error.line)).toEqual([2]);
    expect(alone.errors[0]?.reason).toContain("more than --max-line-bytes (1000) a row allows");
    // Among short rows, the long row itself is refused once decoded.
    const together = await read(3, 5000);
    expect(together.ids).toEqual(["1", "3"]);
    expect(together.errors.map((error) => error.line)).toEqual([2]);
    expect(together.errors[0]?.reason).toContain("longer than 1000; shorten it");
  });
});
