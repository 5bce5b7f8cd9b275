import { basename } from "node:path";
import {
  type ChatSpec,
  chatMessages,
  fitPrompt,
  hasChatTemplate,
  isWhitespaceToken,
  renderChat,
  resolvePrompt,
  scorePosition,
  type VerifierModel,
} from "@assay/verifier";
import { pieceText, readJsonFile, renderedDate } from "@assay/verifier/tooling";

/** What `assay model check` shows of the prompt a model is given. */
export interface PromptView {
  /** Whether the model's chat template wraps the prompt. */
  chat: boolean;
  /** The first template filled with a short example, special tokens shown as «token». */
  shown: string;
  /** 1-based index of the token the head reads, of `tokens`. */
  position: number;
  tokens: number;
  /** The token the score is read at. */
  scoreToken: string;
  /**
   * What comes after the score position: with a chat template, the tokens the template
   * writes after the assistant's answer; without one, what the tokenizer appends (not read).
   */
  after: string[];
  warnings: string[];
  /**
   * The day the template's `strftime_now` renders (assay.json `chat.date` or its default),
   * when the chat template asks for the date and `chat.options.date_string` does not give it.
   */
  date: string | null;
}

const EXAMPLE = { question: "What is 2 + 2?", answer: "4" };

/**
 * The rendered prompt, where the score is read, and warnings when the template in use
 * does not suit the model: a chat model prompted without its chat template, or a base
 * model (its name says so) prompted with one.
 */
export async function describePrompt(model: VerifierModel): Promise<PromptView> {
  const { template, criteria } = model.config;
  const sanitizer = model.untrustedFilter(template);
  const prompt = resolvePrompt(
    template,
    { ...EXAMPLE, metadata: {} },
    criteria?.[0]?.text ?? "",
    sanitizer,
  );
  if (!prompt.ok) throw new Error(`cannot show this template: ${prompt.message}`);
  const fit = fitPrompt(
    model.tokenizer,
    prompt.pieces,
    { maxLength: Number.MAX_SAFE_INTEGER, margin: 0, policy: "error" },
    model.chat,
  );
  if (!fit.ok) throw new Error(`cannot show this template: ${fit.message}`);
  const tokenizer = model.tokenizer;
  const chat = model.chat;
  const position = chat === null ? scorePosition(tokenizer, fit.ids) : fit.ids.length - 1;
  const after =
    chat === null
      ? fit.ids.slice(position + 1).map((id) => tokenizer.tokenText(id))
      : afterAnswer(
          model,
          chat,
          chatMessages(chat, prompt.pieces, prompt.pieces.map(pieceText)),
          fit.text,
        );
  return {
    chat: chat !== null,
    shown: showSpecialTokens(fit.text, markersOf(model)),
    position: position + 1,
    tokens: fit.ids.length,
    scoreToken: tokenizer.tokenText(fit.ids[position] ?? -1),
    after,
    warnings: await warnings(model),
    date: renderedDate(chat),
  };
}

/** The tokens the template writes after the assistant's answer (its end-of-turn markers). */
function afterAnswer(
  model: VerifierModel,
  chat: ChatSpec,
  messages: ReturnType<typeof chatMessages>,
  prompt: string,
): string[] {
  const answer = "A";
  const completed = renderChat(
    chat,
    [...messages, { role: "assistant", content: `${chat.assistantPrefix}${answer}` }],
    false,
  );
  if (!completed.startsWith(prompt + answer)) return [];
  const rest = completed.slice(prompt.length + answer.length);
  return model.tokenizer.encode(rest, false).map((id) => model.tokenizer.tokenText(id));
}

/** The tokenizer's special tokens: the ones a chat template writes as role headers and turn ends. */
function markersOf(model: VerifierModel): string[] {
  if (model.chat === null) return [];
  return model.tokenizer.addedTokens
    .filter((token) => token.special && !isWhitespaceToken(token))
    .map((token) => token.content);
}

/** Each special token wrapped in «», so role headers stand out from the prompt's text. */
export function showSpecialTokens(text: string, markers: readonly string[]): string {
  if (markers.length === 0) return text;
  const pattern = new RegExp(
    [...markers]
      .sort((a, b) => b.length - a.length)
      .map((m) => m.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&"))
      .join("|"),
    "gu",
  );
  return text.replace(pattern, (token) => `«${token}»`);
}

async function warnings(model: VerifierModel): Promise<string[]> {
  const found: string[] = [];
  const name = await modelName(model);
  const base = /(^|[-_/ .])base($|[-_/ .])/iu.test(name);
  if (model.chat === null && !base && (await hasChatTemplate(model.dir))) {
    found.push(
      `the model has a chat template (tokenizer_config.json \`chat_template\`) but assay.json sets "chat": { "enabled": false }: a chat-trained judge reads prompts best in its own template; remove "enabled": false unless ${name} is a base model`,
    );
  }
  if (model.chat !== null && base) {
    found.push(
      `${name} looks like a base model, yet its chat template is applied: a base model was not trained on it; set "chat": { "enabled": false } in assay.json`,
    );
  }
  return found;
}

/** The model's own name: config.json `_name_or_path`, else the source it was loaded from. */
async function modelName(model: VerifierModel): Promise<string> {
  const config = (await readJsonFile(model.dir, "config.json")) as Record<string, unknown>;
  const named = config._name_or_path;
  return typeof named === "string" && named !== "" ? named : basename(model.name);
}
