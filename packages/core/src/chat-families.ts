/**
 * The chat template families Assay makes tiny models of (`assay model make-tiny --chat`)
 * and tests on their real templates. `llama3.2` is Llama 3's tokenizer with Llama 3.2
 * Instruct's template. It lives in core (`@assay/core/chat-families`, apart from the
 * index) so that the CLI lists the choices without loading the optional model tools or
 * zod. The chat fixtures' Python generator
 * (packages/verifier/test/fixtures/chat/make-fixtures.py) keeps its own copy, which
 * packages/verifier/test/chat-families.test.ts checks against this one.
 */
export const CHAT_FAMILIES = ["qwen3", "llama3", "gemma3", "llama3.2"] as const;
export type ChatFamily = (typeof CHAT_FAMILIES)[number];
