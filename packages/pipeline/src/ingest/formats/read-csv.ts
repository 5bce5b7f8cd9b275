import { Readable } from "node:stream";
import { InputError, type LineParseOptions, recordValidator } from "@assay/core";
import { type CsvError, type Info, type Options, parse } from "csv-parse";
import { parse as parseSync } from "csv-parse/sync";
import { type LineOutcome, parseRecord } from "../parse-lines.js";
import { type CellReading, cellsThen } from "./cell-values.js";
import { BrokenStreamError, brokenStreamMessage } from "./decompress.js";
import { NewlineCount } from "./newline-count.js";

/** Outcomes handed on at a time: one step of the stream per batch, not per row. */
const BATCH = 256;

interface Parsed {
  record: string[];
  info: Info;
  /** The record's text as in the file, to tell `""` from an empty cell where one occurs. */
  raw: string;
}

/** An unquoted empty cell leaves its field out; a quoted one (`""`) is the empty string. */
const emptyUnlessQuoted: Options["cast"] = (value, context) =>
  value === "" && !context.quoting ? undefined : value;

/**
 * The rows of a CSV or TSV file (its bytes, decompressed) as line outcomes, in order,
 * through the same validation as a JSONL line. The first record is the header naming
 * each column's field. A row's number is the line of the file where it starts (the
 * header is line 1; a quoted cell may span lines; a line ends at each LF, as in JSONL). `options.mapping` (the spec's `fields`) reads
 * fields from columns by other names; then cells become values by `cellValue`;
 * an empty cell that is not quoted leaves its field out, while `""` is the empty string.
 * A row whose cells do not match the header is refused, the rows around it are not.
 */
export async function* csvOutcomes(
  file: string,
  chunks: AsyncIterable<Uint8Array>,
  delimiter: "," | "\t",
  maxLineBytes: number,
  options: LineParseOptions = {},
): AsyncGenerator<LineOutcome[]> {
  // Built once per file, not per row: the validator is the same for every row.
  const reading: CellReading = { options, validate: cellsThen(recordValidator(options)) };
  const common: Options = {
    delimiter,
    // A quote inside a cell that does not start with one is a character, as a user means it.
    relax_quotes: true,
    relax_column_count: true,
  };
  // No `cast` here: csv-parse builds a context object for every cell it casts, which made
  // reading CSV several times slower than reading JSONL. Which empty cells were quoted is
  // read from the record's raw text instead (`emptyCells`).
  const parser = parse({
    ...common,
    bom: true,
    info: true,
    raw: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    // An unclosed quote would make the rest of the file one cell: bounded like a line.
    max_record_size: maxLineBytes,
  });
  const cellsOf = (parsed: Parsed): (string | undefined)[] =>
    !parsed.record.includes("")
      ? parsed.record
      : (emptyCells(parsed, delimiter) ??
        (parseSync(parsed.raw, { ...common, cast: emptyUnlessQuoted })[0] as (
          | string
          | undefined
        )[]));
  /** The line of the file the last record ended on. */
  let ended = 0;
  const newlines = new NewlineCount();
  let skipped: CsvError | undefined;
  parser.on("skip", (error: CsvError) => {
    skipped ??= error;
  });
  const input = Readable.from(newlines.track(chunks), { objectMode: false });
  input.on("error", (error) => parser.destroy(error));
  input.pipe(parser);

  let header: string[] | undefined;
  // Rows after the header, from 1: a row's position whatever lines it spans.
  let rows = 0;
  let batch: LineOutcome[] = [];
  try {
    for await (const parsed of parser as AsyncIterable<Parsed>) {
      const { info } = parsed;
      const record = cellsOf(parsed);
      // Lines are counted here, not by csv-parse, which counts a CRLF in a quoted cell as
      // two lines: the record ends at `info.bytes`, and starts as many line feeds earlier
      // as its cells hold.
      const through = newlines.through(info.bytes);
      ended = through.newlines + (through.endsWithNewline ? 0 : 1);
      const line = ended - parsed.record.reduce((sum, cell) => sum + newlines.newlinesIn(cell), 0);
      if (header === undefined) {
        header = headerOf(file, line, record);
        continue;
      }
      rows += 1;
      batch.push(rowOutcome(header, record, line, rows, reading));
      if (batch.length >= BATCH) {
        yield batch;
        batch = [];
      }
    }
  } catch (error) {
    if (!(error instanceof BrokenStreamError)) throw error;
    batch.push({
      kind: "refused",
      line: ended + 1,
      field: "",
      message: brokenStreamMessage(error, "rows"),
    });
  } finally {
    input.destroy();
  }
  const unreadable = skipped as CsvError | undefined;
  if (unreadable !== undefined) batch.push(unreadableOutcome(ended + 1, unreadable, maxLineBytes));
  if (batch.length > 0) yield batch;
}

/**
 * The record with each unquoted empty cell as undefined, found by walking its raw text with
 * the cells' values: a quoted cell is written `"` + its value with quotes doubled + `"`, an
 * unquoted one as its value. Undefined when the text does not follow (say, a BOM before the
 * first row): the caller then reads the row again, casting each cell.
 */
function emptyCells(
  { record, raw }: Parsed,
  delimiter: string,
): (string | undefined)[] | undefined {
  const cells: (string | undefined)[] = [];
  let at = 0;
  for (const [index, value] of record.entries()) {
    if (index > 0) {
      if (raw[at] !== delimiter) return undefined;
      at += 1;
    }
    if (raw[at] === '"') {
      const written = `"${value.replaceAll('"', '""')}"`;
      if (!raw.startsWith(written, at)) return undefined;
      at += written.length;
      cells.push(value);
    } else {
      if (!raw.startsWith(value, at)) return undefined;
      at += value.length;
      cells.push(value === "" ? undefined : value);
    }
  }
  return cells;
}

function headerOf(file: string, line: number, cells: (string | undefined)[]): string[] {
  const names = cells.map((cell) => (cell ?? "").trim());
  const seen = new Set<string>();
  for (const [index, name] of names.entries()) {
    const problem =
      name === ""
        ? `column ${index + 1} of the header has no name; name every column after the field it holds`
        : seen.has(name)
          ? `column "${name}" appears twice in the header; each field may have one column`
          : undefined;
    if (problem !== undefined) throw new InputError({ file, line, field: "", message: problem });
    seen.add(name);
  }
  return names;
}

function rowOutcome(
  header: string[],
  cells: (string | undefined)[],
  line: number,
  position: number,
  reading: CellReading,
): LineOutcome {
  if (cells.length !== header.length) {
    return {
      kind: "refused",
      line,
      field: "",
      message: `expected ${header.length} cells as in the header, got ${cells.length}; quote a cell that holds the delimiter`,
    };
  }
  const record: Record<string, unknown> = {};
  for (const [index, column] of header.entries()) {
    const text = cells[index];
    if (text !== undefined) record[column] = text;
  }
  // Cells are read as values once mapped: the rule follows the field a column feeds.
  return parseRecord(record, line, reading.options, reading.validate, position);
}

function unreadableOutcome(line: number, error: CsvError, maxLineBytes: number): LineOutcome {
  // csv-parse counts the lines it went through to the error: all of them from this row on
  // were read as one cell and are lost, each most likely a row.
  const through = (error as { lines?: unknown }).lines;
  const lost = typeof through === "number" ? Math.max(1, through - line + 1) : undefined;
  const lines = (count: number) => `${count} line${count === 1 ? "" : "s"}`;
  const message =
    error.code === "CSV_MAX_RECORD_SIZE"
      ? `a row longer than ${maxLineBytes} bytes starts here (a quote never closed?); nothing after it can be read${lost === undefined ? "" : ` (at least ${lines(lost)} from here, each likely a row)`}: close the quote, or raise --max-line-bytes`
      : error.code === "CSV_QUOTE_NOT_CLOSED"
        ? `a quoted cell starts in this row and is never closed, so the ${lost === undefined ? "lines" : lines(lost)} from here to the end of the file (each likely a row) could not be read; close the quote (a quote inside a quoted cell is written twice)`
        : `this row cannot be read as CSV (${error.message})`;
  return { kind: "refused", line, field: "", message };
}
