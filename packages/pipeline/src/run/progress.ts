/** Counters reported while a dataset is produced. */
export interface ProduceProgress {
  /** Bytes of the dataset read so far, of `datasetBytes`: how far the read is. */
  bytesRead: number;
  /** The dataset's size when it was opened. */
  datasetBytes: number;
  /** Non-blank lines read. */
  lines: number;
  /** Valid samples stored (a line with candidates gives several). */
  samples: number;
  /** Result rows the run needs, stored or not. */
  planned: number;
  enqueued: number;
  /** Results already stored by an earlier attempt of the same run. */
  skipped: number;
  inputErrors: number;
}
