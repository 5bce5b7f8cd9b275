import { join } from "node:path";
import type { BatcherOptions } from "../batch/batcher.js";
import type { ChatSpec } from "../chat/chat-template.js";
import { readChatSpec } from "../chat/read-chat-spec.js";
import type { AssayConfig } from "../config/assay-config.js";
import { ModelFolderError } from "../errors/model-folder-error.js";
import { FitThread } from "../fit/fit-thread.js";
import { checkPreparedGraph } from "../graph/check-prepared-graph.js";
import { createSession, type SessionOptions } from "../session/create-session.js";
import { checkInputs, checkOutput } from "../session/model-io.js";
import { ModelRunner } from "../session/model-runner.js";
import { chooseTokenBreak, TOKEN_BREAKS, TokenGuard } from "../template/token-guard.js";
import { untrustedFilter } from "../template/untrusted-text.js";
import { checkHead } from "./check-head.js";
import { readOpTypes } from "./graph-op-types.js";
import { readAssayConfig, readAttentionSizes, readHiddenSize } from "./read-assay-config.js";
import { type ResolveOptions, resolveModelSource } from "./resolve-source.js";
import { batchSettings, prefixReuseWanted } from "./run-settings.js";
import { loadTokenizer, type VerifierTokenizer } from "./tokenizer.js";
import { VerifierModel } from "./verifier-model.js";

export interface LoadModelOptions extends SessionOptions, ResolveOptions {
  /**
   * Dynamic batching limits. A field left unset comes from assay.json `batch`, else the
   * defaults: 16,384 tokens, 64 rows, 2 ms.
   */
  batch?: BatcherOptions;
  /**
   * Prompts of one sample that share a token prefix compute it once, on a graph exported
   * with past key values. Unset: assay.json `prefix_reuse`, else true; false runs every
   * prompt whole (to compare).
   */
  reusePrefixes?: boolean;
}

/**
 * Loads a verifier from a local folder (Hugging Face layout + assay.json) or a hub id, and
 * checks it before any sample is scored: files present, assay.json valid, graph inputs
 * and output shapes, probe length = hidden size, each scale level one token.
 */
export async function loadModel(
  source: string,
  options: LoadModelOptions = {},
): Promise<VerifierModel> {
  const { dir, revision } = await resolveModelSource(source, options);
  const config = await readAssayConfig(dir);
  const declaredHidden = await readHiddenSize(dir);
  const tokenizer = await loadTokenizer(dir);
  const tokenGuard = guardOf(tokenizer, dir);
  const chat = guardExamples(
    await readChatSpec(dir, config, tokenizer.addedTokens),
    config,
    tokenGuard,
  );
  const onnxFile = join(dir, "onnx", "model.onnx");
  const session = await createSession(onnxFile, options);
  try {
    const io = checkInputs(session, onnxFile, await readAttentionSizes(dir));
    checkPreparedGraph(session, io, config, { onnx: onnxFile, assay: join(dir, "assay.json") });
    const hiddenOutput = config.head.type === "probe" ? config.head.output : null;
    const graphHidden =
      hiddenOutput === null ? null : checkOutput(session, onnxFile, hiddenOutput, io.prepared);
    if (declaredHidden !== null && graphHidden !== null && declaredHidden !== graphHidden) {
      throw new ModelFolderError(
        onnxFile,
        `output \`${hiddenOutput}\` has width ${graphHidden} but config.json hidden_size is ${declaredHidden}`,
      );
    }
    const logitsWidth =
      config.head.type === "distribution"
        ? checkOutput(session, onnxFile, config.head.output, io.prepared)
        : null;
    const hiddenSize = graphHidden ?? declaredHidden ?? 0;
    const head = await checkHead(dir, config, tokenizer, hiddenSize, logitsWidth);
    const paddingSide = config.padding_side ?? tokenizer.paddingSide;
    const fused = await fusedAttention(onnxFile, io.past !== null || paddingSide === "left");
    if (fused && paddingSide === "left") {
      throw new ModelFolderError(
        join(dir, "assay.json"),
        `${onnxFile} fuses attention into GroupQueryAttention, which reads the first keys of each row: it must be right-padded, but the padding side is left; set "padding_side": "right"`,
        "padding_side",
      );
    }
    // Started last: a folder that fails a check never pays for the second tokenizer.
    const fitThread = await FitThread.start(dir, chat);
    // A chat prompt is encoded without the tokenizer's special tokens (its template writes
    // them), so nothing is appended: the score is read at its last token.
    const runner = new ModelRunner(
      session,
      io,
      paddingSide,
      tokenizer.padId,
      chat === null ? tokenizer.appendedTokens : 0,
    );
    return new VerifierModel({
      name: source,
      dir,
      device: options.device ?? "cpu",
      config,
      tokenizer,
      runner,
      hiddenSize,
      probe: head.probe,
      scaleIds: head.scaleIds,
      batchOptions: batchSettings(config, options),
      fitThread,
      // Prefix reuse pads each row's past to the widest one: GroupQueryAttention, which
      // reads the first keys of a row, would read that gap. Prompts then run whole.
      prefixReuseAllowed: prefixReuseWanted(config, options) && !fused,
      chat,
      revision,
      tokenGuard,
    });
  } catch (error) {
    await session.release();
    throw error;
  }
}

/**
 * Whether the graph runs onnxruntime's GroupQueryAttention (what its optimizers fuse a
 * decoder's attention into). It takes each row's length (`seqlens_k`), not a mask: it reads
 * the first keys of the row, so left padding or a padded past would be attended to. The file
 * is walked only when `needed` (left padding or past inputs): other folders never pay for it.
 */
async function fusedAttention(onnxFile: string, needed: boolean): Promise<boolean> {
  return needed && (await readOpTypes(onnxFile)).has("GroupQueryAttention");
}

/**
 * The guard that keeps the tokenizer's added tokens out of untrusted text, with a break
 * character this tokenizer is seen to read as text; null when it has no added token.
 */
function guardOf(tokenizer: VerifierTokenizer, dir: string): TokenGuard | null {
  const guard = TokenGuard.of(tokenizer.addedTokens);
  if (guard.empty) return null;
  const breakWith = chooseTokenBreak(tokenizer.addedTokens, (text) =>
    tokenizer.encode(text, false),
  );
  if (breakWith === null) {
    throw new ModelFolderError(
      join(dir, "tokenizer.json"),
      `no character in ${JSON.stringify(TOKEN_BREAKS)} breaks this tokenizer's added tokens (its normalizer removes them), so a candidate's text could spell one: check the normalizer`,
    );
  }
  return TokenGuard.of(tokenizer.addedTokens, breakWith);
}

/**
 * The chat examples (few-shot turns) with the same added tokens and plain-text markers
 * broken as in a sample's values: they are text the template wraps in turns, not turns.
 */
function guardExamples(
  chat: ChatSpec | null,
  config: AssayConfig,
  guard: TokenGuard | null,
): ChatSpec | null {
  if (chat === null || chat.examples.length === 0) return chat;
  const filter = untrustedFilter([], [...(config.delimiters ?? []), ...chat.markers], guard);
  if (filter === null) return chat;
  const clean = (text: string) => filter.neutralize(text).text;
  const examples = chat.examples.map((turn) => ({
    user: clean(turn.user),
    assistant: clean(turn.assistant),
  }));
  return { ...chat, examples };
}
