/**
 * `npm run bench:chat [-- --prompts N --pairs K]`: what rendering chat prompts with Python's
 * string semantics costs (packages/verifier/src/chat/python-string-calls.ts). For each
 * family's real template, N verifier prompts (a system message, two few-shot turns, one
 * with a thinking block, the graded question and answer) are rendered three ways:
 * - before (the baseline): @huggingface/jinja alone, as renderChat rendered before the
 *   change (the template as parsed, every global declared anew for each prompt);
 * - Python calls: the rewritten template and its Python string globals, still declared
 *   anew for each prompt (the cost of the Python semantics alone);
 * - renderChat as it is (the rewritten template, the globals shared by every render).
 * Each is timed against the baseline over the same block of 20 prompts, in alternating
 * order, K times; a ratio is the median of the K block ratios, so load on a shared machine
 * falls on both sides alike. For scale, the same prompts are encoded by the family's
 * tokenizer, which every scored prompt also pays. Target: renderChat ÷ before ≤ 1.0.
 */
import { parseArgs } from "node:util";
import {
  AssayConfigSchema,
  type ChatMessage,
  type ChatSpec,
  loadTokenizer,
  readChatSpec,
  renderChat,
  strftimeOn,
} from "@assay/verifier";
import { Environment, Interpreter, Template } from "@huggingface/jinja";
import {
  callPythonStrings,
  PYTHON_STRING_GLOBALS,
} from "../../packages/verifier/src/chat/python-string-calls.js";
import { CHAT_FAMILIES, chatFamilyDir } from "../../packages/verifier/test/chat-families.js";
import { fmt, median } from "./bench-util.js";

const { values: flags } = parseArgs({
  options: {
    prompts: { type: "string", default: "1000" },
    pairs: { type: "string", default: "150" },
  },
});
const count = Number(flags.prompts);
const pairs = Number(flags.pairs);
const BLOCK = 20;

const config = AssayConfigSchema.parse({
  max_length: 8192,
  template: [
    { text: "You grade answers. Reply with one letter.", message: "system" },
    { slot: "answer" },
  ],
  chat: {
    options: { enable_thinking: false },
    examples: [
      {
        user: "[Question]\nCapital of France?\n[Answer]\nParis",
        assistant: "<think>\nRight.\n</think>\n\n T",
      },
      { user: "[Question]\nCapital of France?\n[Answer]\nLyon", assistant: " A" },
    ],
  },
  head: { type: "probe", probe: [1] },
});

function promptMessages(spec: ChatSpec, i: number): ChatMessage[] {
  const answer = `Step ${i}: the sum of the first ${i} odd numbers is ${i * i}. `.repeat(12);
  return [
    { role: "system", content: "You grade answers. Reply with one letter." },
    ...spec.examples.flatMap((turn) => [
      { role: "user" as const, content: turn.user },
      { role: "assistant" as const, content: turn.assistant },
    ]),
    {
      role: "user",
      content: `[Question]\nIs the sum of the first ${i} odd numbers ${i * i}?\n[Answer]\n${answer}`,
    },
  ];
}

type Render = (messages: ChatMessage[]) => string;

/** renderChat's variables and globals, all declared for each prompt, over `template`. */
function renderEachAnew(
  spec: ChatSpec,
  template: Template,
  extra: Record<string, unknown>,
): Render {
  return (messages) => {
    const env = new Environment();
    const context: Record<string, unknown> = {
      ...extra,
      true: true,
      false: false,
      none: null,
      True: true,
      False: false,
      None: null,
      range: (n: number) => Array.from({ length: n }, (_, i) => i),
      raise_exception: (message: unknown) => {
        throw new Error(String(message));
      },
      strftime_now: (format: string) => strftimeOn(spec.date, format),
      ...spec.specialTokens,
      ...spec.options,
      messages: messages.map((m) => ({ ...m })),
      add_generation_prompt: true,
    };
    for (const [name, value] of Object.entries(context)) env.set(name, value);
    return String(new Interpreter(env).run(template.parsed).value) + spec.assistantPrefix;
  };
}

/** Median of the ratios `render` ÷ `baseline` over blocks of the same prompts, in turns. */
function ratioTo(baseline: Render, render: Render, prompts: ChatMessage[][]): number {
  const ratios: number[] = [];
  const time = (fn: Render, block: ChatMessage[][]) => {
    const start = performance.now();
    for (const messages of block) fn(messages);
    return performance.now() - start;
  };
  for (let pair = 0; pair < pairs; pair += 1) {
    const at = (pair * BLOCK) % (prompts.length - BLOCK);
    const block = prompts.slice(at, at + BLOCK);
    // Alternate which goes first, so neither always runs on a warmer cache.
    if (pair % 2 === 0) {
      const base = time(baseline, block);
      ratios.push(time(render, block) / base);
    } else {
      const ours = time(render, block);
      ratios.push(ours / time(baseline, block));
    }
  }
  return median(ratios);
}

/** Median over 5 passes of the µs per item `fn` takes. */
function microsEach<T>(items: readonly T[], fn: (item: T) => unknown): number {
  const times: number[] = [];
  for (let rep = 0; rep < 5; rep += 1) {
    const start = performance.now();
    for (const item of items) fn(item);
    times.push(((performance.now() - start) * 1000) / items.length);
  }
  return median(times);
}

console.log(
  `bench:chat — ${fmt(count)} prompts per family; ratios: medians of ${pairs} alternating blocks of ${BLOCK} prompts`,
);
console.log(
  "family     before µs   Python calls ÷ before   renderChat ÷ before   encode µs   (renderChat − before) ÷ encode",
);
const netRatios: number[] = [];
const callRatios: number[] = [];
for (const family of CHAT_FAMILIES) {
  const dir = await chatFamilyDir(family);
  const spec = (await readChatSpec(dir, config)) as ChatSpec;
  const tokenizer = await loadTokenizer(dir);
  const prompts = Array.from({ length: count }, (_, i) => promptMessages(spec, i + 1));
  const before = renderEachAnew(spec, new Template(spec.template), {});
  const pythonCalls = renderEachAnew(
    spec,
    callPythonStrings(new Template(spec.template)),
    PYTHON_STRING_GLOBALS,
  );
  const current: Render = (messages) => renderChat(spec, messages);
  const texts = prompts.map(current);
  if (prompts.some((messages, i) => pythonCalls(messages) !== texts[i])) {
    throw new Error(`${family}: the Python calls variant renders otherwise than renderChat`);
  }
  // Warm all three up before timing.
  for (const fn of [before, pythonCalls, current]) microsEach(prompts.slice(0, 200), fn);
  const beforeUs = microsEach(prompts, before);
  const callRatio = ratioTo(before, pythonCalls, prompts);
  const netRatio = ratioTo(before, current, prompts);
  callRatios.push(callRatio);
  netRatios.push(netRatio);
  const encodeUs = microsEach(texts, (text) => tokenizer.encode(text, false));
  console.log(
    `${family.padEnd(10)} ${fmt(beforeUs, 1).padStart(9)} ${fmt(callRatio, 3).padStart(23)} ${fmt(netRatio, 3).padStart(21)} ${fmt(encodeUs, 1).padStart(11)} ${fmt(((netRatio - 1) * beforeUs) / encodeUs, 3).padStart(32)}`,
  );
}
console.log(
  `median over families: Python calls ÷ before ${fmt(median(callRatios), 3)}; renderChat ÷ before ${fmt(median(netRatios), 3)} (target ≤ 1.0)`,
);
