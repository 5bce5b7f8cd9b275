import { execFileSync } from "node:child_process";
import { propertyRuns } from "@assay/test-support/property-runs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type DatasetEvent, readDataset } from "../src/index.js";
import { decompressed, ZSTD_INPUT_SLICE } from "../src/ingest/formats/decompress.js";
import { ZSTD_MAX_WINDOW_BYTES } from "../src/ingest/formats/zstd-frames.js";
import { jsonl, tempFiles } from "./temp-files.js";

const files = tempFiles("assay-zstd-window-");

// A zstd frame names the window its decoder must hold, and the decoder allocates it when
// the frame starts: a few hostile bytes could ask for 2 GiB. Frames above the bound are
// refused from their header; what came before them is kept.

/** A frame header alone (RFC 8878): magic, a descriptor with no flags, a window byte. */
function hugeWindowHeader(exponent: number): Uint8Array {
  return Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, (exponent - 10) << 3]);
}

function zstd(input: string, flags: string[]): Uint8Array {
  return execFileSync("zstd", ["-q", "-c", ...flags], { input });
}

/** A skippable frame: another program's metadata, which a reader passes over. */
function skippable(payload: number): Uint8Array {
  const frame = Buffer.alloc(8 + payload, 0x7a);
  frame.writeUInt32LE(0x184d2a53, 0);
  frame.writeUInt32LE(payload, 4);
  return frame;
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

async function decode(bytes: Uint8Array): Promise<{ text: string; error?: Error }> {
  const parts: Uint8Array[] = [];
  try {
    for await (const part of decompressed(once(bytes), "zstd")) parts.push(part);
    return { text: Buffer.concat(parts).toString() };
  } catch (error) {
    return { text: Buffer.concat(parts).toString(), error: error as Error };
  }
}

describe("zstd window bound", () => {
  it("a frame asking for a 1 GiB window is refused from its header; the lines before it are kept", async () => {
    const good = zstd(jsonl([{ id: "1", question: "q", answer: "a" }]), []);
    const path = files.write("huge-window.jsonl.zst", Buffer.concat([good, hugeWindowHeader(30)]));
    const events: DatasetEvent[] = [];
    const before = process.memoryUsage().arrayBuffers;
    for await (const event of readDataset(path)) events.push(event);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 << 20);
    const ids = events.flatMap((event) => (event.kind === "samples" ? event.samples : []));
    expect(ids.map((sample) => sample.id)).toEqual(["1"]);
    const errors = events.flatMap((event) => (event.kind === "error" ? [event.error] : []));
    expect(errors).toHaveLength(1);
    expect(errors[0]?.line).toBe(2);
    expect(errors[0]?.reason).toContain(
      `the zstd frame at byte ${good.length} needs a 1024 MiB window`,
    );
    expect(errors[0]?.reason).toContain("zstd -d --memory=1024MB");
    expect(errors[0]?.reason).toContain("the lines before it were read and are kept");
  });

  it("a window at the bound is read as usual", async () => {
    // --long=27 asks for exactly 128 MiB, the most the zstd tool decodes by default.
    const text = jsonl([{ id: "1", question: "q", answer: "a" }]);
    expect(2 ** 27).toBe(ZSTD_MAX_WINDOW_BYTES);
    expect(await decode(zstd(text, ["--long=27"]))).toEqual({ text });
  });

  it("a refused header split between two reads leaves none of its bytes to the decoder", async () => {
    // The decoder is fed ZSTD_INPUT_SLICE bytes at a time: here the first read ends five
    // bytes into the hostile header, before its window byte.
    const good = zstd("  ", ["-1", "--no-check"]);
    const valid = Buffer.concat([skippable(ZSTD_INPUT_SLICE - 5 - 8 - good.length), good]);
    expect(valid.length).toBe(ZSTD_INPUT_SLICE - 5);
    const hostile = await decode(Buffer.concat([valid, hugeWindowHeader(31)]));
    expect(hostile.text).toBe("  ");
    expect(hostile.error?.message).toContain(
      `the zstd frame at byte ${valid.length} needs a 2048 MiB window`,
    );
    // A stream that simply stops inside a header is still called cut off.
    const cut = await decode(Buffer.concat([valid, hugeWindowHeader(31).subarray(0, 5)]));
    expect(cut.text).toBe("  ");
    expect(cut.error?.message).toMatch(/unexpected EOF/i);
  });

  it("any stream of valid frames reads whole, and a huge frame after them is found where it starts", async () => {
    const frame = fc.record({
      text: fc.string({ maxLength: 3000 }),
      level: fc.integer({ min: 1, max: 19 }),
      checksum: fc.boolean(),
      // Content size known (a single-segment frame when small) or not.
      sized: fc.boolean(),
      skippableBefore: fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 4 }), async (frames) => {
        const parts = frames.flatMap((f) => {
          const flags = [`-${f.level}`, f.checksum ? "--check" : "--no-check"];
          if (f.sized) flags.push(`--stream-size=${Buffer.byteLength(f.text)}`);
          const compressed = zstd(f.text, flags);
          return f.skippableBefore === undefined
            ? [compressed]
            : [skippable(f.skippableBefore), compressed];
        });
        const valid = Buffer.concat(parts);
        const expected = frames.map((f) => f.text).join("");
        expect(await decode(valid)).toEqual({ text: expected });
        const hostile = await decode(Buffer.concat([valid, hugeWindowHeader(31)]));
        expect(hostile.text).toBe(expected);
        expect(hostile.error?.message).toContain(
          `the zstd frame at byte ${valid.length} needs a 2048 MiB window`,
        );
      }),
      { numRuns: propertyRuns(25) },
    );
  });
});
