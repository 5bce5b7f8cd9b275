import { formatFieldPath, type PathStep, printable } from "@assay/core";
import { type FieldSource, isObject, resolve } from "./field-resolve.js";

/**
 * Warnings for mapped paths that pick a chat turn by a fixed position from the start
 * (`messages[1].content`), seen in the dataset's first record: a row with a system turn
 * first, or more turns, has another turn there, and the run scores it without a word. A negative index or a role
 * filter (`messages[role=assistant][-1]`) says what is meant; the warning names it. A
 * list is a chat when the item it picks is an object with a text `role`.
 */
export function fixedChatPositions(
  record: Record<string, unknown>,
  sources: readonly FieldSource[],
): string[] {
  const warnings: string[] = [];
  for (const source of sources) {
    // Fields inside each candidate are read from the candidate, not the record.
    if (source.field.startsWith("candidates.")) continue;
    const turn = fixedTurn(record, source.steps);
    if (turn === undefined) continue;
    // The same path with the fixed position replaced by "the last turn of its role".
    const byRole: PathStep[] = [
      ...source.steps.slice(0, turn.at),
      { key: "role", equals: turn.role },
      -1,
      ...source.steps.slice(turn.at + 1),
    ];
    warnings.push(
      `fields.${source.field} reads ${printable(source.column)}: turn ${source.steps[turn.at]} of a chat, ` +
        "counted from its start, and a row whose chat has another shape (a system turn first, " +
        "more turns) has another turn there; " +
        `to read the last ${printable(turn.role)} turn, map ${printable(formatFieldPath(byRole))}`,
    );
  }
  return warnings;
}

/** Where `steps` index a chat from its start in `record`, and the role of that turn. */
function fixedTurn(
  record: Record<string, unknown>,
  steps: readonly PathStep[],
): { at: number; role: string } | undefined {
  for (let at = 0; at < steps.length; at += 1) {
    const step = steps[at];
    if (typeof step !== "number" || step < 0) continue;
    // `[role=assistant][0]`, the first turn of a role, means what it says.
    if (typeof steps[at - 1] === "object") continue;
    const item = resolve(record, steps.slice(0, at + 1));
    if (item.ok && isObject(item.value) && typeof item.value.role === "string") {
      return { at, role: item.value.role };
    }
  }
  return undefined;
}
