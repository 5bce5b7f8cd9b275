import type { CandidateQuery, ReportBundle, SampleRecord } from "@assay/core";
import type { AblationCandidateRow } from "./reports/ablation-candidates.js";
import type { BundleOptions } from "./reports/report-bundle.js";
import type { BaselinePin, PinnedBaseline } from "./reports/rollups/baselines.js";
import type { SelectionStats } from "./reports/selection-stats.js";

/** The report queries, and the rollups that let them read a few rows instead of every score. */
export interface ReportStore {
  /** What `assay report` shows of a run: its report, comparison, trend and early stops. */
  reportBundle(runId: string, options?: BundleOptions): Promise<ReportBundle>;
  /** What the store holds about one sample; undefined when the run has no such sample. */
  sampleRecord(runId: string, sampleId: string): Promise<SampleRecord | undefined>;
  /** The run's candidates with the verifier values behind their scores, whole tasks a page. */
  ablationCandidatePages(
    runId: string,
    query: CandidateQuery,
    tasksPerPage?: number,
  ): AsyncIterable<AblationCandidateRow[]>;
  /** A pairwise judge's stored values by sample id (null: left unscored); absent: no row yet. */
  pairScores(
    runId: string,
    scorer: string,
    sampleIds: readonly string[],
  ): Promise<Map<string, number | null>>;

  /** What the run's stored selections count to; undefined when it has none. */
  selectionStats(runId: string): Promise<SelectionStats | undefined>;

  /** Whether the run's report figures are rolled up (else reports read its raw rows). */
  hasRollups(runId: string): Promise<boolean>;
  /** Computes the run's report figures from its raw rows and stores them, replacing any. */
  writeRollups(runId: string): Promise<void>;
  /** Forgets the run's rollups, so its reports read raw rows until they are written again. */
  dropRollups(runId: string): Promise<void>;
  /**
   * Pins a completed run as its name's baseline: runs of that name completed later are also
   * compared with it at completion (`assay baseline`).
   */
  pinBaseline(runId: string): Promise<BaselinePin>;
  /**
   * Whether the run's comparison with that baseline was counted at completion, so that a
   * report of the pair reads neither run's raw rows.
   */
  comparisonCounted(runId: string, baselineRunId: string): Promise<boolean>;
  /** Every name's pinned baseline, by name. */
  listBaselines(): Promise<PinnedBaseline[]>;
  /** Unpins the run if it is a baseline; the name it was pinned for, else null. */
  unpinBaseline(runId: string): Promise<string | null>;
  /**
   * Refreshes the planner's statistics of the tables a run wrote (`written`), or of its
   * selections and rollups (`derived`), so later queries are planned for their real size:
   * of the partitioned raw tables, the run's own partitions.
   */
  refreshPlannerStatistics(tables: "written" | "derived", runId: string): Promise<void>;
}
