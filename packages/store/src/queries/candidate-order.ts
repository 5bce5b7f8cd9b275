/**
 * The order of a task's candidates wherever they are read: candidate index, then line, then
 * sample id (a task grouped from several one-answer lines holds index 0 many times; its
 * first line is its first candidate). `samples` is the samples table's alias, if any.
 */
export function candidateOrder(samples?: string): string {
  const column = (name: string) => (samples === undefined ? name : `${samples}.${name}`);
  return ["task_id", "candidate_index", "line", "sample_id"].map(column).join(", ");
}
