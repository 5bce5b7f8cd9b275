import { z } from "zod";
import { type ScorerRef, ScorerRefSchema } from "./scorer-ref.js";
import { type GeneratorUsage, GeneratorUsageSchema } from "./usage.js";
import { describeValue } from "./validation/describe-value.js";
import { idField } from "./validation/ids.js";
import { MAX_ID_LENGTH } from "./validation/limits.js";

const scalar = z.union([z.string(), z.number(), z.boolean()]);

/**
 * What an answer is checked against. Its JSON type is what routing rules see as
 * `target_type`: string | number | boolean | list | object.
 */
export const TargetSchema = z.union(
  // The scalar types listed one by one rather than as `scalar`: a nested union that fails
  // (every list target) writes out its issues' messages, a cost paid on every such line.
  [z.string(), z.number(), z.boolean(), z.array(scalar), z.record(z.string(), z.unknown())],
  { error: (issue) => targetMessage(issue.input) },
);

function targetMessage(target: unknown): string {
  if (Array.isArray(target)) {
    const index = target.findIndex(
      (item) => !["string", "number", "boolean"].includes(typeof item),
    );
    return `target is a list, so its items must be strings, numbers or booleans; item [${index}] is ${describeValue(target[index])}`;
  }
  return `target must be a string, a number, true or false, a list of those, or an object; got ${describeValue(target)}`;
}
export type Target = z.infer<typeof TargetSchema>;
export type TargetType = "string" | "number" | "boolean" | "list" | "object" | "none";

export function targetType(target: Target | undefined): TargetType {
  if (target === undefined) return "none";
  if (Array.isArray(target)) return "list";
  switch (typeof target) {
    case "string":
      return "string";
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    default:
      return "object";
  }
}

/**
 * Any JSON object. A `z.record` of unknown values ran a schema on every key and value of
 * every line's metadata, and copied it, to learn nothing more than this: with the id
 * field's transform (see `idField`) it was ~40% of this schema's time per line (bench:local's
 * lines, 2.2 → 1.35 µs). What the values may hold is checked before (`checkJsonValue`).
 */
const MetadataSchema = z.custom<Record<string, unknown>>(isPlainObject, {
  error: (issue) => `metadata must be an object, got ${describeValue(issue.input)}`,
});

function isPlainObject(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

const CandidateSchema = z.strictObject({
  answer: z.string(),
  label: z.boolean().optional(),
  generator: GeneratorUsageSchema.optional(),
  steps: z.array(z.string()).optional(),
});

/** One line of a dataset file (JSONL). Field names are snake_case, as users write them. */
export const DatasetLineSchema = z
  .strictObject({
    id: idField("id"),
    task_id: idField("task_id").optional(),
    question: z.string(),
    answer: z.string().optional(),
    candidates: z.array(CandidateSchema).min(1).optional(),
    target: TargetSchema.optional(),
    label: z.boolean().optional(),
    metadata: MetadataSchema.optional(),
    scorers: z.array(ScorerRefSchema).min(1).optional(),
    generator: GeneratorUsageSchema.optional(),
    steps: z.array(z.string()).optional(),
  })
  .superRefine((line, ctx) => {
    line.scorers?.forEach((ref, index) => {
      const key = ref.key ?? ref.name;
      if (key.length > MAX_ID_LENGTH) {
        ctx.addIssue({
          code: "custom",
          path: ["scorers", index, ref.key === undefined ? "name" : "key"],
          message: `a scorer key must be at most ${MAX_ID_LENGTH} characters, got ${key.length}`,
        });
      }
    });
    const hasAnswer = line.answer !== undefined;
    const hasCandidates = line.candidates !== undefined;
    if (hasAnswer === hasCandidates) {
      ctx.addIssue({
        code: "custom",
        path: [hasAnswer ? "candidates" : "answer"],
        message: hasAnswer
          ? "give either `answer` or `candidates`, not both"
          : "missing `answer` (a string) or `candidates` (a list of {answer})",
      });
    }
  });
export type DatasetLine = z.output<typeof DatasetLineSchema>;

/**
 * One answer to score. A dataset line with `candidates` becomes one sample per candidate
 * (id `<line id>#<index>`), all sharing the task id.
 */
export interface Sample {
  id: string;
  taskId: string;
  candidateIndex: number;
  question: string;
  answer: string;
  target?: Target;
  label?: boolean;
  metadata: Record<string, unknown>;
  scorers?: ScorerRef[];
  generator?: GeneratorUsage;
  steps?: string[];
  /**
   * Set when the generator gave no text to score (a refusal, only tool calls, a reply cut
   * off before any text): every scorer's result is unscored with this reason, and `answer`
   * is "". Only joined answers (`--answers`) set it; a dataset line cannot.
   */
  unanswered?: Unanswered;
  /** 1-based line of the dataset file the sample came from. */
  line: number;
}

/** Why a joined reply holds no answer text, and the provider's own words for it. */
export interface Unanswered {
  reason: "refusal" | "tool_call" | "incomplete";
  message: string;
}

export function samplesFromLine(line: DatasetLine, lineNumber: number): Sample[] {
  // Plain property writes rather than conditional spreads: this runs once per sample on
  // the hot path. Absent optional fields stay undefined (JSON drops them).
  const sample = (id: string, index: number, answer: string, from: CandidateFields): Sample => ({
    id,
    taskId: line.task_id ?? line.id,
    candidateIndex: index,
    question: line.question,
    answer,
    target: line.target,
    label: from.label,
    metadata: line.metadata ?? {},
    scorers: line.scorers,
    generator: from.generator,
    steps: from.steps,
    line: lineNumber,
  });
  if (line.candidates === undefined) return [sample(line.id, 0, line.answer ?? "", line)];
  return line.candidates.map((candidate, index) =>
    sample(`${line.id}#${index}`, index, candidate.answer, candidate),
  );
}

type CandidateFields = Pick<DatasetLine, "label" | "generator" | "steps">;
