import { z } from "zod";
import { isCalendarDate } from "../chat/template-date.js";

/** Slot names with a fixed meaning; any other slot reads the sample's own metadata key. */
export const RESERVED_SLOTS = ["question", "answer", "criterion"] as const;

/**
 * The chat message a piece goes into when the model's chat template is applied (`chat`):
 * `system` pieces make the system message, `user` pieces the user message. Default `user`;
 * without a chat template the pieces are joined in order whatever their message.
 */
const MessageSchema = z.enum(["system", "user"]).optional();

export const TextPieceSchema = z.strictObject({
  /** Literal template text; always kept. */
  text: z.string(),
  message: MessageSchema,
});

export const SlotPieceSchema = z.strictObject({
  /** `question`, `answer`, `criterion`, or a metadata key. */
  slot: z.string().min(1),
  /** Text written before the value when the piece is present (dropped with it). */
  prefix: z.string().default(""),
  /** Text written after the value when the piece is present (dropped with it). */
  suffix: z.string().default(""),
  /** A required piece enters whole (a required question is never cut) or the call is refused. Default false. */
  required: z.boolean().default(false),
  /**
   * Drop order of optional pieces when the input does not fit: lowest priority first, and
   * among equal priorities the one declared last first. Default 0.
   */
  priority: z.number().default(0),
  message: MessageSchema,
});

export const TemplateSchema = z
  .array(z.union([TextPieceSchema, SlotPieceSchema]))
  .min(1)
  .superRefine((pieces, ctx) => {
    const count = (name: string) => pieces.filter((p) => "slot" in p && p.slot === name).length;
    if (count("answer") !== 1) {
      ctx.addIssue({
        code: "custom",
        message: `needs exactly one {"slot": "answer"} piece, got ${count("answer")}`,
      });
    }
    for (const name of ["question", "criterion"]) {
      if (count(name) > 1)
        ctx.addIssue({
          code: "custom",
          message: `has ${count(name)} "${name}" slots; at most one`,
        });
    }
  });

/** The two answer slots of a pairwise template: answer A is shown first. */
export const PAIR_SLOTS = ["answer_a", "answer_b"] as const;

/**
 * A pairwise judge's template: `answer_a` and `answer_b` once each (both always enter
 * whole), no `answer` slot; question and other slots as in a pointwise template.
 */
export const PairwiseTemplateSchema = z
  .array(z.union([TextPieceSchema, SlotPieceSchema]))
  .min(1)
  .superRefine((pieces, ctx) => {
    const count = (name: string) => pieces.filter((p) => "slot" in p && p.slot === name).length;
    for (const name of PAIR_SLOTS) {
      if (count(name) !== 1) {
        ctx.addIssue({
          code: "custom",
          message: `needs exactly one {"slot": "${name}"} piece, got ${count(name)}`,
        });
      }
    }
    for (const name of ["answer", "criterion"]) {
      if (count(name) > 0) {
        ctx.addIssue({ code: "custom", message: `a pairwise template has no "${name}" slot` });
      }
    }
    if (count("question") > 1) {
      ctx.addIssue({
        code: "custom",
        message: `has ${count("question")} "question" slots; at most one`,
      });
    }
  });

/**
 * The pairwise judge: one forward pass over both answers gives P(A better than B) from the
 * next-token probabilities of the two choice tokens at the score position.
 */
export const PairwiseConfigSchema = z.strictObject({
  template: PairwiseTemplateSchema,
  /** The tokens that name answer A and answer B; each must be ONE token. Default ["A", "B"]. */
  choices: z.tuple([z.string().min(1), z.string().min(1)]).default(["A", "B"]),
  /** Output read (next-token logits). Default `logits`. */
  output: z.string().min(1).default("logits"),
});

export const ProbeHeadSchema = z.strictObject({
  type: z.literal("probe"),
  /**
   * The probe vector (length = hidden size), or the path of a JSON array inside the model
   * folder, relative to it: absolute paths, `..` escapes and links leading out are refused
   * before the file is read (`folderFile`).
   */
  probe: z.union([z.array(z.number()).min(1), z.string().min(1)]),
  bias: z.number().default(0),
  /** Apply a sigmoid to `hidden · probe + bias`. Default true; without it the value must lie in [0, 1]. */
  sigmoid: z.boolean().default(true),
  /** Output read by the head. Default `last_hidden_state`. */
  output: z.string().min(1).default("last_hidden_state"),
});

export const DistributionHeadSchema = z.strictObject({
  type: z.literal("distribution"),
  /** The G score levels, worst first; each must be ONE token. */
  scale: z.array(z.string().min(1)).min(2),
  /** A total scale probability at or below this leaves the sample unscored. Default 0. */
  min_mass: z.number().min(0).max(1).default(0),
  /** Output read by the head. Default `logits`. */
  output: z.string().min(1).default("logits"),
});

export const HeadSchema = z.discriminatedUnion("type", [ProbeHeadSchema, DistributionHeadSchema]);

export const CriterionSchema = z.strictObject({ name: z.string().min(1), text: z.string() });

/** A fixed example turn shown before the prompt: what the judge is asked, what it answers. */
export const ChatExampleSchema = z.strictObject({ user: z.string(), assistant: z.string() });

/**
 * How the prompt is wrapped in the model's own chat template (tokenizer_config.json
 * `chat_template`), rendered with `add_generation_prompt` so the score is read where the
 * assistant's first token goes (or right after `assistant_prefix`).
 */
export const ChatConfigSchema = z.strictObject({
  /** Apply the chat template. Default: true when tokenizer_config.json has a `chat_template`. */
  enabled: z.boolean().optional(),
  /** Few-shot turns between the system message and the prompt's user message. Default none. */
  examples: z.array(ChatExampleSchema).default([]),
  /** Variables the template reads besides the messages, e.g. Qwen3's `enable_thinking: false`. */
  options: z.record(z.string(), z.json()).default({}),
  /** Text the assistant's answer starts with (e.g. `Score: `); the score is read after it. */
  assistant_prefix: z.string().default(""),
  /**
   * The day (YYYY-MM-DD) the template's `strftime_now` renders, e.g. Llama 3.2's "Today
   * Date: 26 Jul 2024", instead of the day the prompt is rendered, so the same judge reads
   * the same prompt every night. Default 2024-07-26 (DEFAULT_TEMPLATE_DATE).
   */
  date: z
    .string()
    .refine(isCalendarDate, "must be a calendar day written YYYY-MM-DD, e.g. 2024-07-26")
    .optional(),
});

/**
 * A model folder's assay.json. Before this schema sees it, the text passes the checks a
 * dataset line passes (`parseJsonConfig` in core: no key written twice, no `__proto__`
 * key, no NUL or lone surrogate, at most 64 levels deep, only numbers that read exactly),
 * and any field not declared here is refused. packages/verifier/README.md documents it.
 */
export const AssayConfigSchema = z.strictObject({
  /** Longest input, special tokens included. */
  max_length: z.int().positive(),
  /** Tokens held back when the question is cut (re-tokenization can shift counts). Default 8. */
  margin: z.int().min(0).default(8),
  /** Overrides tokenizer_config.json `padding_side`. */
  padding_side: z.enum(["left", "right"]).optional(),
  template: TemplateSchema,
  /** More prompt variants; variant 0 is `template`. Repetitions K use the first K. */
  variants: z.array(TemplateSchema).optional(),
  /** Criteria C, each a separate prompt through the `criterion` slot. */
  criteria: z.array(CriterionSchema).min(1).optional(),
  /**
   * More strings to neutralize in untrusted values (question, answer, metadata), besides the
   * template text around those slots, which is always neutralized. Default none.
   */
  delimiters: z.array(z.string().min(1)).optional(),
  head: HeadSchema,
  /** A pairwise judge over two answers (the `pairwise` scorer). Optional. */
  pairwise: PairwiseConfigSchema.optional(),
  /**
   * `prepared`: the graph was rewritten by `assay model prepare` (it takes `score_position`
   * and returns only what the head reads). Default `exported`.
   */
  graph: z.enum(["exported", "prepared"]).default("exported"),
  /**
   * The model family the verifier belongs to (e.g. `qwen`). Its scores carry it, and the
   * report compares them on answers from generators whose model name contains it with
   * answers from other generators (self-preference). Optional.
   */
  family: z.string().min(1).optional(),
  /**
   * Forward-pass limits for this model: `max_tokens` (rows × longest row, past included
   * under prefix reuse) and `max_rows`. The loader's options (`assay run` and `assay worker`
   * flags) win over these; unset, 16,384 tokens and 64 rows.
   */
  batch: z
    .strictObject({ max_tokens: z.int().positive(), max_rows: z.int().positive() })
    .partial()
    .optional(),
  /**
   * Compute a token prefix shared by a sample's prompts once (a graph with past key values).
   * The loader's `reusePrefixes` wins over it; unset, true.
   */
  prefix_reuse: z.boolean().optional(),
  /** The model's chat template around the prompt (see ChatConfigSchema). Default: applied when present. */
  chat: ChatConfigSchema.optional(),
});

export type TextPiece = z.output<typeof TextPieceSchema>;
export type SlotPiece = z.output<typeof SlotPieceSchema>;
export type TemplatePiece = TextPiece | SlotPiece;
export type Template = TemplatePiece[];
export type PairwiseConfig = z.output<typeof PairwiseConfigSchema>;
export type ProbeHeadConfig = z.output<typeof ProbeHeadSchema>;
export type DistributionHeadConfig = z.output<typeof DistributionHeadSchema>;
export type HeadConfig = z.output<typeof HeadSchema>;
export type Criterion = z.output<typeof CriterionSchema>;
export type ChatConfig = z.output<typeof ChatConfigSchema>;
export type PieceMessage = NonNullable<z.output<typeof MessageSchema>>;
export type AssayConfig = z.output<typeof AssayConfigSchema>;
export type AssayConfigInput = z.input<typeof AssayConfigSchema>;
