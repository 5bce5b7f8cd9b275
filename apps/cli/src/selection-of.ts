import type { RunCompletion } from "@assay/pipeline";
import type { SelectionTotals } from "@assay/selection";

/** The selection accuracies a completion found, for the end-of-run summary. */
export function selectionOf(completion: RunCompletion): SelectionTotals | undefined {
  return completion.state === "completed" ? completion.selection : undefined;
}
