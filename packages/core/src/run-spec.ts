import { z } from "zod";
import { FieldsSpecSchema } from "./fields-spec.js";
import { ScorerRefSchema } from "./scorer-ref.js";

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/**
 * A rule matches when every entry of `when` matches: the key is a sample field path
 * (`target_type`, `id`, `task_id`, `candidate_index`, `has_label`, `label`,
 * `metadata.<key>`), the value is the expected value or a list of accepted values. Any
 * other key is refused when the spec loads (`assertRoutableField`), names every object
 * inherits (`valueOf`, `constructor`) included; `metadata.<key>` reads the sample's own
 * keys only.
 */
export const RoutingRuleSchema = z.strictObject({
  name: z.string().min(1),
  when: z.record(z.string(), z.union([scalar, z.array(scalar).min(1)])),
  scorers: z.array(ScorerRefSchema).min(1),
});
export type RoutingRule = z.infer<typeof RoutingRuleSchema>;

/**
 * How to pick one candidate per task once the run is scored. Correctness comes from each
 * candidate's label, else from the `check` scorer's value ≥ `threshold`.
 */
export const SelectionSpecSchema = z
  .strictObject({
    /** Scorer key whose value ranks the candidates (usually the verifier's). */
    verifier: z.string().min(1),
    /** Deterministic scorer key deciding correctness where a candidate has no label. */
    check: z.string().min(1).optional(),
    /** A check value at or above this is correct. Default 0.5. */
    threshold: z.number().min(0).max(1).default(0.5),
    /** best_of_n (default) or pivot_tournament (O(N·k) pairwise comparisons). */
    method: z.enum(["best_of_n", "pivot_tournament"]).default("best_of_n"),
    /** Pivots of the tournament. Default 3. */
    k: z.int().min(1).default(3),
    /**
     * A pairwise judge (usually `{ name: "pairwise", args: { model } }`). With it the pivot
     * tournament's pairs are judged by a model, each in both orders, as GPU jobs planned with
     * the candidates; without it P(A beats B) is derived from the pointwise scores.
     */
    judge: ScorerRefSchema.optional(),
    /** Seed of the tournament's pivot draw (each task draws its own). Default 0. */
    seed: z.int().default(0),
  })
  .superRefine((selection, ctx) => {
    if (selection.judge !== undefined && selection.method !== "pivot_tournament") {
      ctx.addIssue({
        code: "custom",
        path: ["judge"],
        message: "a pairwise judge needs `method: pivot_tournament`",
      });
    }
  });
export type SelectionSpec = z.infer<typeof SelectionSpecSchema>;

/**
 * Whether the dataset's `generator.input_tokens` already counts the cached input tokens.
 * Providers differ (some report a total that includes cached tokens, others count them
 * apart), so a dataset that reports cached tokens must say which, or they would be billed
 * twice or not at all.
 */
export const GeneratorUsageSpecSchema = z.strictObject({
  input_tokens: z.enum(["includes_cached", "excludes_cached"]),
});
export type GeneratorUsageSpec = z.infer<typeof GeneratorUsageSpecSchema>;

/**
 * When a scorer's result passes: `value >= threshold`, the threshold of the scorer's key
 * in `scorers`, else `threshold` (default 0.5). A scored value lies in [0, 1], so `1` means
 * "only a perfect score". The selection's `check` scorer passes by `selection.threshold`
 * (it cannot be named here). Stored with the run (`runs.pass_threshold`,
 * `runs.pass_thresholds`) and used by reports and the analyst views (docs/analyst-views.md).
 */
export const PassSpecSchema = z.strictObject({
  threshold: z.number().min(0).max(1).default(0.5),
  /** Per scorer key. */
  scorers: z.record(z.string().min(1), z.number().min(0).max(1)).default({}),
  /**
   * Without selection, the scorer key whose result decides whether a task is solved. Absent:
   * every result of the task's first candidate must pass.
   */
  solved_by: z.string().min(1).optional(),
});
export type PassSpec = z.infer<typeof PassSpecSchema>;

/**
 * A run spec (YAML or JSON). Before this schema sees it, the document passes the checks a
 * dataset line passes (`parseJsonConfig`, `parseYamlConfig`): no key
 * written twice, no `__proto__` key, no NUL or lone surrogate, at most 64 levels deep,
 * only numbers that read exactly. docs/cli.md ("The run spec") documents it; change both.
 */
export const RunSpecSchema = z
  .strictObject({
    /** Shown in reports and used to group nightly runs. */
    name: z.string().min(1).optional(),
    /** Checked in order; the first rule that matches routes the sample. */
    rules: z.array(RoutingRuleSchema).default([]),
    /** Scorers for samples that match no rule. Without it such samples are input errors. */
    default: z.strictObject({ scorers: z.array(ScorerRefSchema).min(1) }).optional(),
    /** Best-of-N selection over each task's candidates, run when the run completes. */
    selection: SelectionSpecSchema.optional(),
    /** Required when the dataset reports `cached_input_tokens`. */
    generator_usage: GeneratorUsageSpecSchema.optional(),
    /** When a result passes, and what decides a solved task without selection. */
    pass: PassSpecSchema.optional(),
    /** The dataset column each field is read from, for a dataset in other field names. */
    fields: FieldsSpecSchema.optional(),
    /**
     * Seconds a job may take before it fails with the reason and is retried (see
     * `--job-timeout`, whose default, 600, applies without it).
     */
    job_timeout_s: z.number().positive().max(86_400).optional(),
  })
  .superRefine((spec, ctx) => {
    const check = spec.selection?.check;
    if (check !== undefined && spec.pass !== undefined && Object.hasOwn(spec.pass.scorers, check)) {
      ctx.addIssue({
        code: "custom",
        path: ["pass", "scorers", check],
        message: `\`${check}\` is the selection's check scorer: its pass rule is \`selection.threshold\``,
      });
    }
  });
export type RunSpec = z.infer<typeof RunSpecSchema>;
export type RunSpecInput = z.input<typeof RunSpecSchema>;

/** Rule name recorded for samples that carry their own `scorers`. */
export const SAMPLE_RULE = "sample";
/** Rule name recorded for samples routed by the spec's `default`. */
export const DEFAULT_RULE = "default";
