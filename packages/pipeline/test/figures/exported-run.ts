import type { ExportRow } from "@assay/core";
import type { ExportedTable, Store } from "@assay/store";

// A run as `assay export` writes it, one array per `--table`, each row as its JSON line
// parsed back: what an outside reviewer has to recompute the report from.

export interface SampleLine {
  sample_id: string;
  task_id: string;
  candidate_index: number;
  label: boolean | null;
  line: number;
  metadata: Record<string, unknown>;
}

export interface TruncationLine {
  sample_id: string;
  scorer: string;
  criterion: string;
  repetition: number;
  original_tokens: number;
  kept_tokens: number;
  dropped_tokens: number;
}

export interface UsageLine {
  sample_id: string;
  role: "generator" | "verifier";
  model: string;
  scorer: string;
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_tokens: number;
  /** The part of cache_write_tokens written to a 1-hour cache. */
  cache_write_1h_tokens: number;
  output_tokens: number;
  compute_ms: number | null;
  [column: string]: unknown;
}

export interface SelectionLine {
  task_id: string;
  method: string;
  selected_index: number | null;
  selected_sample_id: string | null;
  tie: boolean;
}

export interface ExportedRun {
  scores: ExportRow[];
  samples: SampleLine[];
  truncations: TruncationLine[];
  usage: UsageLine[];
  selections: SelectionLine[];
}

const TABLES: ExportedTable[] = ["samples", "truncations", "usage", "selections"];

/** Every table of the run through the store's export (what `assay export` streams). */
export async function exportRun(store: Store, runId: string): Promise<ExportedRun> {
  const asJsonLines = async (rows: AsyncIterable<unknown>) => {
    const lines: unknown[] = [];
    for await (const row of rows) lines.push(JSON.parse(JSON.stringify(row)));
    return lines;
  };
  const tables = await Promise.all(
    TABLES.map((table) => asJsonLines(store.exportRows(runId, table))),
  );
  return {
    scores: (await asJsonLines(store.exportScores(runId))) as ExportRow[],
    samples: tables[0] as SampleLine[],
    truncations: tables[1] as TruncationLine[],
    usage: tables[2] as UsageLine[],
    selections: tables[3] as SelectionLine[],
  };
}
