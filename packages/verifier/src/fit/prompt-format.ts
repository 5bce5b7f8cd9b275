import { type ChatSpec, chatMessages, renderChat } from "../chat/chat-template.js";
import type { VerifierTokenizer } from "../model/tokenizer.js";
import type { PromptPiece } from "../template/resolve-prompt.js";

/**
 * How kept pieces become the model's input: the text around them and its token ids. The
 * fit measures and re-tokenizes what this renders, so whatever wraps the pieces (a chat
 * template's role headers, special tokens, generation prompt) counts against the window.
 */
export interface PromptFormat {
  /** `texts[i]` is piece i as assembled, null when the fit left it out. */
  render(pieces: readonly PromptPiece[], texts: readonly (string | null)[]): string;
  encode(text: string): number[];
}

/** Plain text: the pieces joined, encoded with the tokenizer's own special tokens. */
export function plainFormat(tokenizer: VerifierTokenizer): PromptFormat {
  return {
    render: (_pieces, texts) => texts.map((t) => t ?? "").join(""),
    encode: (text) => tokenizer.encode(text, true),
  };
}

/**
 * The model's chat template around the pieces. The rendered text already holds every
 * special token the model expects (BOS included, where the template writes it), so it is
 * encoded without adding them again, as apply_chat_template(tokenize=True) does.
 */
export function chatFormat(tokenizer: VerifierTokenizer, spec: ChatSpec): PromptFormat {
  return {
    render: (pieces, texts) => renderChat(spec, chatMessages(spec, pieces, texts)),
    encode: (text) => tokenizer.encode(text, false),
  };
}

export function promptFormat(tokenizer: VerifierTokenizer, chat: ChatSpec | null): PromptFormat {
  return chat === null ? plainFormat(tokenizer) : chatFormat(tokenizer, chat);
}
