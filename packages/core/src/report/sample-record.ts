export interface UsageRecord {
  role: "generator" | "verifier";
  model: string;
  inputTokens: number;
  cachedInputTokens: number;
  /** Input tokens written to a prompt cache, apart from the two above. */
  cacheWriteTokens: number;
  /** The part of `cacheWriteTokens` written to a 1-hour cache. Absent: none. */
  cacheWrite1hTokens?: number;
  outputTokens: number;
  computeMs: number | null;
  device: string | null;
}

/** How one prompt of a model call was fitted; a verifier logs one per criterion and variant. */
export interface TruncationRecord {
  /** The verifier criterion ("" when the model has one prompt). */
  criterion: string;
  /** The prompt variant (repetition). */
  variant: number;
  originalTokens: number;
  keptTokens: number;
  droppedTokens: number;
  /** The slot that was cut ("" when nothing was). */
  slot: string;
  policy: string;
}

/** One stored result of a sample, with the truncation and usage rows written with it. */
export interface ScoreRecord {
  scorer: string;
  criterion: string;
  repetition: number;
  /** The routing rule that sent the sample to this scorer. */
  rule: string;
  status: "scored" | "unscored";
  value: number | null;
  reason: string | null;
  detail: Record<string, unknown> | null;
  /** One per prompt the scorer fitted (none for deterministic scorers). */
  truncations: TruncationRecord[];
  usage: UsageRecord | null;
}

/** What the store holds about one sample of a run (`assay show`). */
export interface SampleRecord {
  runId: string;
  sampleId: string;
  taskId: string;
  candidateIndex: number;
  label: boolean | null;
  /** 1-based line of the run's dataset the sample was read from. */
  line: number;
  metadata: Record<string, unknown>;
  /** What generating the answer cost, when the dataset said. */
  generator: UsageRecord | null;
  scores: ScoreRecord[];
}

/**
 * The sample's line read back from the run's dataset. `ok`: the line still holds the
 * sample as stored; `modified`: it does, but the file changed after the run started, so
 * the text may differ from what was scored; `changed`: the line no longer holds it;
 * `missing`: the file cannot be read; `unknown`: the run recorded no dataset, or read
 * standard input, which cannot be read again.
 */
export interface DatasetReadBack {
  path: string | null;
  line: number;
  status: "ok" | "modified" | "changed" | "missing" | "unknown";
  /** What went wrong, or the warning for `modified`; null for `ok`. */
  message: string | null;
  /** Present for `ok` and `modified`. */
  question?: string;
  answer?: string;
  /**
   * For answers joined with --answers: where `answer` came from (the batch output file,
   * line and custom id), why there is none (a refusal, only tool calls, cut off), or, for a
   * run that did not keep it, where to look.
   */
  answerNote?: string;
  target?: unknown;
  steps?: string[];
}

/** `assay show`: the stored sample, its scores, and its question and answer from the dataset. */
export interface SampleView {
  sample: SampleRecord;
  dataset: DatasetReadBack;
}
