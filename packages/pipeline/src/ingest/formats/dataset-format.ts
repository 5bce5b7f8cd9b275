import { InputError } from "@assay/core";
import type { DatasetFormat } from "@assay/core/input-formats";

export { DATASET_FORMATS, type DatasetFormat, datasetFormat } from "@assay/core/input-formats";

/** How a JSONL, CSV or TSV dataset's bytes are compressed; always told by its first bytes. */
export type Compression = "none" | "gzip" | "zstd";

export interface DetectedFormat {
  format: DatasetFormat;
  compression: Compression;
}

/** Bytes `detectFormat` looks at: enough for a magic number and a CSV header. */
export const HEAD_BYTES = 4096;

const GZIP = [0x1f, 0x8b];
const ZSTD = [0x28, 0xb5, 0x2f, 0xfd];
const PARQUET = [0x50, 0x41, 0x52, 0x31]; // "PAR1"
/** Containers Assay does not read, named so the error can say what the file is. */
const UNREADABLE: [string, number[]][] = [
  ["zip", [0x50, 0x4b, 0x03, 0x04]],
  ["bzip2", [0x42, 0x5a, 0x68]],
  ["xz", [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
  ["7z", [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]],
];
const FORMAT_OF_EXTENSION: Record<string, DatasetFormat> = {
  jsonl: "jsonl",
  ndjson: "jsonl",
  json: "jsonl",
  csv: "csv",
  tsv: "tsv",
  tab: "tsv",
  parquet: "parquet",
  pq: "parquet",
};
const COMPRESSED_EXTENSION = /\.(gz|gzip|zst|zstd)$/i;
const FIX = "pass --format jsonl, csv, tsv or parquet to say which it is";

/**
 * The format of a dataset from its first bytes (`head`), its name and the `--format` the
 * user gave. Compression and Parquet are told by their magic bytes, never by the name
 * alone, so a renamed file still reads. A text file's format is `--format`, else its
 * extension (`.csv.gz` is gzip-compressed CSV), else CSV or TSV when its first line is a
 * header naming `id` and `question`, else JSONL. A `--format` the bytes contradict, and a
 * file of a kind Assay cannot read, are refused with what to do instead.
 */
export function detectFormat(
  file: string,
  head: Uint8Array,
  requested: DatasetFormat | undefined,
): DetectedFormat {
  const refuse = (message: string): never => {
    throw new InputError({ file, line: 0, field: "", message });
  };
  const unreadable = UNREADABLE.find(([, magic]) => startsWith(head, magic));
  if (unreadable !== undefined) {
    refuse(
      `this is ${unreadable[0]} data, which Assay cannot read; decompress it, or compress it with gzip or zstd instead`,
    );
  }
  const named = formatOfName(file);
  if (startsWith(head, PARQUET)) {
    if (requested !== undefined && requested !== "parquet") {
      refuse(
        `this is a Parquet file, not ${requested}; pass --format parquet or leave --format out`,
      );
    }
    return { format: "parquet", compression: "none" };
  }
  const compression: Compression = startsWith(head, GZIP)
    ? "gzip"
    : startsWith(head, ZSTD)
      ? "zstd"
      : "none";
  const claimed = requested ?? named;
  if (claimed === "parquet") {
    const was =
      requested !== undefined ? "--format parquet was given" : "the name ends in .parquet";
    const what =
      compression === "none"
        ? "it does not start with PAR1"
        : `it is ${compression}-compressed; Parquet compresses its own pages, so decompress it`;
    refuse(`${was}, but this is not a Parquet file (${what}); ${FIX}`);
  }
  if (compression !== "none") return { format: claimed ?? "jsonl", compression };
  const text = leadingText(head);
  if ((claimed === "csv" || claimed === "tsv") && text.startsWith("{")) {
    const was =
      requested !== undefined ? `--format ${requested} was given` : `the name says ${claimed}`;
    refuse(`${was}, but this starts with "{" like JSONL; pass --format jsonl`);
  }
  return { format: claimed ?? headerFormat(text) ?? "jsonl", compression };
}

function formatOfName(file: string): DatasetFormat | undefined {
  const name = file.replace(COMPRESSED_EXTENSION, "");
  const dot = name.lastIndexOf(".");
  if (dot === -1 || name.lastIndexOf("/") > dot) return undefined;
  return FORMAT_OF_EXTENSION[name.slice(dot + 1).toLowerCase()];
}

function startsWith(bytes: Uint8Array, magic: number[]): boolean {
  return bytes.length >= magic.length && magic.every((byte, index) => bytes[index] === byte);
}

/** The head as text, without a byte-order mark or leading blank space. */
function leadingText(head: Uint8Array): string {
  return new TextDecoder("utf-8")
    .decode(head)
    .replace(/^\uFEFF/, "")
    .trimStart();
}

/** CSV or TSV when the first line is a header that names both `id` and `question`. */
function headerFormat(text: string): DatasetFormat | undefined {
  const newline = text.indexOf("\n");
  if (newline === -1) return undefined;
  const first = text.slice(0, newline).replace(/\r$/, "");
  const delimiter = first.includes("\t") ? "\t" : ",";
  const names = first.split(delimiter).map((name) => name.trim().replace(/^"(.*)"$/, "$1"));
  if (!names.includes("id") || !names.includes("question")) return undefined;
  return delimiter === "\t" ? "tsv" : "csv";
}
