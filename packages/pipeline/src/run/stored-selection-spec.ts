import { type SelectionSpec, SelectionSpecSchema, SpecError } from "@assay/core";
import type { RunRecord } from "@assay/store";

/**
 * The selection the run's stored spec asks for: what completion runs, whichever process
 * completes the run, so that a worker or `assay status` selects exactly as the command
 * that produced the run would have. The stored spec is the resolved one (every default
 * filled in), replaced when a resume is allowed another spec.
 */
export function storedSelectionSpec(run: RunRecord): SelectionSpec | undefined {
  const selection = (run.spec as { selection?: unknown } | null)?.selection;
  if (selection === undefined) return undefined;
  const parsed = SelectionSpecSchema.safeParse(selection);
  if (parsed.success) return parsed.data;
  throw new SpecError(
    `the stored spec of run ${run.id}`,
    "selection",
    `${parsed.error.issues.map((issue) => issue.message).join("; ")}; this version cannot ` +
      "select with it: resume the run with a spec it reads and --allow-changed-spec",
  );
}
