import { type FileHandle, open } from "node:fs/promises";
import { ModelFolderError } from "../errors/model-folder-error.js";

/** Protobuf wire types (groups, 3 and 4, are not used by ONNX). */
export const WireType = { varint: 0, fixed64: 1, bytes: 2, fixed32: 5 } as const;

/** Where one protobuf field lies in the file. */
export interface ProtoField {
  number: number;
  wireType: number;
  /** Offset of the field's tag. */
  start: number;
  /** Offset of the value (after the tag and, for a bytes field, its length). */
  valueStart: number;
  /** Offset just past the field. */
  end: number;
  /** The value of a varint field (0 for other wire types). */
  varint: number;
}

/** Small reads are served from a window this size, so walking tags costs few system calls. */
const WINDOW = 64 * 1024;

/**
 * Walks the protobuf fields of a file by offset without loading it: a model's weights can
 * be gigabytes inside the .onnx itself, and a field that is not needed (a tensor's
 * raw_data) is skipped by its length, never read.
 */
export class ProtoReader {
  #window = Buffer.alloc(0);
  #windowStart = 0;

  private constructor(
    readonly file: string,
    readonly size: number,
    readonly handle: FileHandle,
  ) {}

  static async open(file: string): Promise<ProtoReader> {
    const handle = await open(file, "r");
    const { size } = await handle.stat();
    return new ProtoReader(file, size, handle);
  }

  close(): Promise<void> {
    return this.handle.close();
  }

  /**
   * Bytes [start, end) of the file. The returned buffer is never reused by the reader, so
   * a message decoded from it may keep views into it.
   */
  async bytes(start: number, end: number): Promise<Buffer> {
    const length = end - start;
    const windowEnd = this.#windowStart + this.#window.length;
    if (start >= this.#windowStart && end <= windowEnd) {
      return this.#window.subarray(start - this.#windowStart, end - this.#windowStart);
    }
    const size = Math.min(Math.max(length, WINDOW), this.size - start);
    if (size < length) this.#invalid(start, "a field runs past the end of the file");
    const buffer = Buffer.allocUnsafe(size);
    let read = 0;
    while (read < size) {
      const { bytesRead } = await this.handle.read(buffer, read, size - read, start + read);
      if (bytesRead === 0) this.#invalid(start + read, "unexpected end of file");
      read += bytesRead;
    }
    this.#window = buffer;
    this.#windowStart = start;
    return buffer.subarray(0, length);
  }

  /** The fields of the message stored at [start, end), in file order. */
  async fields(start: number, end: number): Promise<ProtoField[]> {
    const fields: ProtoField[] = [];
    let at = start;
    while (at < end) {
      const tag = await this.#varint(at, end);
      const number = Math.floor(tag.value / 8);
      const wireType = tag.value % 8;
      let valueStart = tag.end;
      let fieldEnd: number;
      let varint = 0;
      if (wireType === WireType.varint) {
        const value = await this.#varint(valueStart, end);
        varint = value.value;
        fieldEnd = value.end;
      } else if (wireType === WireType.bytes) {
        const length = await this.#varint(valueStart, end);
        valueStart = length.end;
        fieldEnd = valueStart + length.value;
      } else if (wireType === WireType.fixed64) {
        fieldEnd = valueStart + 8;
      } else if (wireType === WireType.fixed32) {
        fieldEnd = valueStart + 4;
      } else {
        this.#invalid(at, `unsupported protobuf wire type ${wireType}`);
      }
      if (number === 0 || fieldEnd > end) this.#invalid(at, "a field runs past its message");
      fields.push({ number, wireType, start: at, valueStart, end: fieldEnd, varint });
      at = fieldEnd;
    }
    return fields;
  }

  /** A base-128 varint as a number (exact below 2^53: offsets, lengths and enums). */
  async #varint(at: number, end: number): Promise<{ value: number; end: number }> {
    const bytes = await this.bytes(at, Math.min(at + 10, end));
    let value = 0;
    let scale = 1;
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i] ?? 0;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return { value, end: at + i + 1 };
      scale *= 128;
    }
    return this.#invalid(at, "a varint runs past its message");
  }

  #invalid(at: number, message: string): never {
    throw new ModelFolderError(this.file, `not a valid ONNX file at byte ${at}: ${message}`);
  }
}

/** A varint's bytes. */
export function encodeVarint(value: number): Uint8Array {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 128) {
    bytes.push((rest % 128) | 0x80);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return Uint8Array.from(bytes);
}

/** The tag and length that start a bytes field (a message or string) of `length` bytes. */
export function bytesFieldHeader(number: number, length: number): Uint8Array {
  const tag = encodeVarint(number * 8 + WireType.bytes);
  const size = encodeVarint(length);
  const header = new Uint8Array(tag.length + size.length);
  header.set(tag);
  header.set(size, tag.length);
  return header;
}
