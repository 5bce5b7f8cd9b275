import { Environment, Interpreter, Template } from "@huggingface/jinja";
import type { PromptPiece } from "../template/resolve-prompt.js";
import { callPythonStrings, PYTHON_STRING_GLOBALS } from "./python-string-calls.js";
import { strftimeOn } from "./template-date.js";

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/**
 * Everything needed to render a prompt in the model's chat template. Plain data, so the
 * fit thread receives it whole and renders exactly what the scorer's thread would.
 */
export interface ChatSpec {
  /** The Jinja source of tokenizer_config.json `chat_template`. */
  template: string;
  /** `bos_token`, `eos_token`… from tokenizer_config.json, passed to the template as Hugging Face does. */
  specialTokens: Record<string, string>;
  /** assay.json `chat.options`: more template variables (they win over the special tokens). */
  options: Record<string, unknown>;
  /** Few-shot turns after the system message. */
  examples: readonly { user: string; assistant: string }[];
  /** Written after the generation prompt; the score is read at its last token. */
  assistantPrefix: string;
  /**
   * The special tokens the template writes (`<|im_start|>`, `<|eot_id|>`…): a candidate who
   * writes one could close its turn and open the assistant's, so untrusted values have them
   * neutralized like the template's own delimiters.
   */
  markers: string[];
  /**
   * The day `strftime_now` renders (YYYY-MM-DD, assay.json `chat.date`), in place of the
   * wall clock, so a night's prompt is the same as the last night's.
   */
  date: string;
}

const compiled = new Map<string, Template>();
const globalsByDate = new Map<string, Environment>();

/**
 * The day the prompt carries: the spec's date when the template calls `strftime_now` and
 * `options.date_string` does not give the text instead; null when no date is rendered.
 */
export function renderedDate(spec: ChatSpec | null): string | null {
  if (spec === null || !spec.template.includes("strftime_now")) return null;
  return "date_string" in spec.options ? null : spec.date;
}

/**
 * The conversation rendered as `tokenizer.apply_chat_template(messages,
 * add_generation_prompt=True, tokenize=False, **options)` renders it (trim_blocks and
 * lstrip_blocks, `raise_exception`), followed by the assistant prefix; `strftime_now`
 * renders the spec's fixed date, not today's, and `strip`/`lstrip`/`rstrip`/`split` and the
 * `trim` filter strip and split as Python's `str` does (python-string-calls.ts).
 */
export function renderChat(
  spec: ChatSpec,
  messages: readonly ChatMessage[],
  addGenerationPrompt = true,
): string {
  let template = compiled.get(spec.template);
  if (template === undefined) {
    template = callPythonStrings(new Template(spec.template));
    if (compiled.size > 16) compiled.clear();
    compiled.set(spec.template, template);
  }
  // Template.render declares the library's `strftime_now` (today's date), which a context
  // variable cannot replace: the environment is built here instead, over one that holds
  // the globals transformers gives a chat template, and the context's names win over them.
  const env = new Environment(globalsOn(spec.date));
  const context: Record<string, unknown> = {
    ...spec.specialTokens,
    ...spec.options,
    messages: messages.map((m) => ({ ...m })),
    add_generation_prompt: addGenerationPrompt,
  };
  for (const [name, value] of Object.entries(context)) env.set(name, value);
  const text = String(new Interpreter(env).run(template.parsed).value);
  return addGenerationPrompt ? text + spec.assistantPrefix : text;
}

/**
 * An environment of Jinja's constants and `range`, the two functions transformers adds
 * (`strftime_now` on the fixed date) and the Python string methods the compiled template
 * calls. It is built once per date and shared by every render: a template's `set` writes
 * to the render's own environment, never to this one, and declaring these values anew for
 * each prompt cost more than the Python string calls do (bench:chat).
 */
function globalsOn(date: string): Environment {
  let globals = globalsByDate.get(date);
  if (globals === undefined) {
    globals = new Environment();
    for (const [name, value] of Object.entries(templateGlobals(date))) globals.set(name, value);
    if (globalsByDate.size > 16) globalsByDate.clear();
    globalsByDate.set(date, globals);
  }
  return globals;
}

function templateGlobals(date: string): Record<string, unknown> {
  return {
    ...PYTHON_STRING_GLOBALS,
    true: true,
    false: false,
    none: null,
    True: true,
    False: false,
    None: null,
    range: pythonRange,
    raise_exception: (message: unknown) => {
      throw new Error(String(message));
    },
    strftime_now: (format: string) => strftimeOn(date, format),
  };
}

/** Python's `range(stop)` / `range(start, stop[, step])`. */
function pythonRange(start: number, stop?: number, step = 1): number[] {
  const [from, to] = stop === undefined ? [0, start] : [start, stop];
  if (step === 0) throw new Error("range() step must not be zero");
  const out: number[] = [];
  for (let i = from; step > 0 ? i < to : i > to; i += step) out.push(i);
  return out;
}

/**
 * The messages of a filled template: the `system` pieces (when the template has any, even
 * if all were left out, so the wrapper never changes with the fit), the example turns, and
 * the `user` pieces. `texts[i]` is piece i as assembled, null when it was left out.
 */
export function chatMessages(
  spec: ChatSpec,
  pieces: readonly PromptPiece[],
  texts: readonly (string | null)[],
): ChatMessage[] {
  const contentOf = (message: PromptPiece["message"]) =>
    pieces.map((piece, i) => (piece.message === message ? (texts[i] ?? "") : "")).join("");
  const system = pieces.some((p) => p.message === "system")
    ? [{ role: "system" as const, content: contentOf("system") }]
    : [];
  const examples = spec.examples.flatMap((turn) => [
    { role: "user" as const, content: turn.user },
    { role: "assistant" as const, content: turn.assistant },
  ]);
  return [...system, ...examples, { role: "user", content: contentOf("user") }];
}
