import { modelIdentity } from "@assay/core/model-identity";
import { type BatchedResult, Batcher, type BatchStats } from "../batch/batcher.js";
import { GroupBatcher } from "../batch/group-batcher.js";
import type { ChatSpec } from "../chat/chat-template.js";
import type { AssayConfig, Template } from "../config/assay-config.js";
import type { FitOptions, FitResult } from "../fit/fit.js";
import type { FitThread } from "../fit/fit-thread.js";
import type { SessionInfo } from "../session/inference-messages.js";
import type { ModelRunner } from "../session/model-runner.js";
import type { PromptPiece } from "../template/resolve-prompt.js";
import type { TokenGuard } from "../template/token-guard.js";
import { type UntrustedFilter, untrustedFilter } from "../template/untrusted-text.js";
import type { BatchSettings } from "./run-settings.js";
import type { VerifierTokenizer } from "./tokenizer.js";

/** What `forwardSharingPrefixes` returns for one sample's prompts. */
export interface SharedForward {
  vectors: Float32Array[];
  /** Per sequence: tokens first computed for it (the rest of its tokens came from a cache). */
  computed: number[];
  /** Per sequence: its share of the wall time, by computed tokens. */
  computeMs: number[];
  /** Per sequence: its share of the passes (each pass split evenly over its rows). */
  passShares: number[];
}

/** Totals of `forwardSharingPrefixes` since load. */
export interface PrefixReuseStats {
  calls: number;
  /** Forward passes run. */
  passes: number;
  /** Tokens of the prompts sent. */
  inputTokens: number;
  /** Tokens computed, each shared prefix once (the rest came from a cache). */
  computedTokens: number;
  /** Tokens the passes computed, padding included (rows × longest new run). */
  paddedTokens: number;
  computeMs: number;
}

/** What `loadModel` hands a `VerifierModel`; see the fields of the same names. */
export interface VerifierModelParts {
  name: string;
  dir: string;
  device: string;
  config: AssayConfig;
  tokenizer: VerifierTokenizer;
  runner: ModelRunner;
  hiddenSize: number;
  probe: Float32Array | null;
  scaleIds: number[] | null;
  batchOptions: BatchSettings;
  fitThread: FitThread;
  prefixReuseAllowed: boolean;
  chat: ChatSpec | null;
  revision: string | null;
  tokenGuard: TokenGuard | null;
}

/** A loaded verifier: load once per process, then build scorers from it. */
export class VerifierModel {
  readonly #batchers = new Map<string, Batcher<Float32Array>>();
  readonly #groupBatchers = new Map<string, GroupBatcher<SharedForward>>();
  readonly #shared = {
    calls: 0,
    passes: 0,
    inputTokens: 0,
    computedTokens: 0,
    paddedTokens: 0,
    computeMs: 0,
  };
  #closing: Promise<void> | undefined;

  /** What the user passed (folder or hub id), as messages quote it. */
  readonly name: string;
  /**
   * What the model is, however it was spelled (`modelIdentity`): a folder's real absolute
   * path or the hub id. Usage rows name the model by it, so a run prices the verifier the
   * same whoever loaded it under which spelling (`assay run` or a GPU worker).
   */
  readonly identity: string;
  readonly dir: string;
  readonly device: string;
  readonly config: AssayConfig;
  readonly tokenizer: VerifierTokenizer;
  readonly runner: ModelRunner;
  /** Width of the hidden state (config.json or the graph). */
  readonly hiddenSize: number;
  /** Probe vector of an assay.json probe head (validated against the hidden size). */
  readonly probe: Float32Array | null;
  /** Token ids of an assay.json distribution head's scale. */
  readonly scaleIds: number[] | null;
  /** Batch limits, resolved at load (option > assay.json > default). */
  readonly batchOptions: BatchSettings;
  readonly fitThread: FitThread;
  /** `reusePrefixes` as loaded: false keeps the plain path even on a with-past graph. */
  readonly prefixReuseAllowed: boolean;
  /** The chat template the prompts are rendered in; null for plain text. */
  readonly chat: ChatSpec | null;
  /** The Hub commit sha a hub id was loaded at; null for a local folder. */
  readonly revision: string | null;
  /** Breaks the tokenizer's added tokens in untrusted text; null when it has none. */
  readonly tokenGuard: TokenGuard | null;

  constructor(parts: VerifierModelParts) {
    this.name = parts.name;
    this.identity = modelIdentity(parts.name);
    this.dir = parts.dir;
    this.device = parts.device;
    this.config = parts.config;
    this.tokenizer = parts.tokenizer;
    this.runner = parts.runner;
    this.hiddenSize = parts.hiddenSize;
    this.probe = parts.probe;
    this.scaleIds = parts.scaleIds;
    this.batchOptions = parts.batchOptions;
    this.fitThread = parts.fitThread;
    this.prefixReuseAllowed = parts.prefixReuseAllowed;
    this.chat = parts.chat;
    this.revision = parts.revision;
    this.tokenGuard = parts.tokenGuard;
  }

  /**
   * Prompts of one sample that share a token prefix compute it once: the graph was
   * exported with past key values (and reuse was not turned off at load).
   */
  get reusesPrefixes(): boolean {
    return this.prefixReuseAllowed && this.runner.canReusePrefixes;
  }

  /**
   * The vector of `output` at the score position of each of `sequences` (one sample's
   * prompts), each shared prefix computed once; only on a model that `reusesPrefixes`.
   * Same values as `forward` on each sequence, to float tolerance. Concurrent samples run
   * in the same passes (a short wait, as the batcher's) but never share a cache.
   * `scoreTokenIds` as for `forward` (a prepared graph's scale; other graphs ignore it).
   */
  forwardSharingPrefixes(
    sequences: readonly (readonly number[])[],
    output: string,
    scoreTokenIds: readonly number[] = [],
  ): Promise<SharedForward> {
    const ids = this.runner.io.hasScoreTokenIds ? scoreTokenIds : [];
    const key = ids.length === 0 ? output : `${output}:${ids.join(",")}`;
    let batcher = this.#groupBatchers.get(key);
    if (batcher === undefined) {
      batcher = new GroupBatcher((groups) => this.#runGroups(groups, output, ids), {
        maxWaitMs: this.batchOptions.maxWaitMs ?? 2,
        maxTokens: 4 * this.batchOptions.maxBatchTokens,
      });
      this.#groupBatchers.set(key, batcher);
    }
    return batcher.submit(sequences);
  }

  /** Several samples' prompt sets in one forest of passes; wall time split by computed tokens. */
  async #runGroups(
    groups: readonly (readonly (readonly number[])[])[],
    output: string,
    scoreTokenIds: readonly number[],
  ): Promise<SharedForward[]> {
    const started = performance.now();
    const { vectors, computed, passShares, passes, paddedTokens } =
      await this.runner.runSharingPrefixes(groups, output, this.batchOptions, scoreTokenIds);
    const ms = performance.now() - started;
    const total = computed.flat().reduce((a, b) => a + b, 0);
    this.#shared.calls += groups.length;
    this.#shared.passes += passes;
    this.#shared.computedTokens += total;
    this.#shared.paddedTokens += paddedTokens;
    this.#shared.inputTokens += groups.flat().reduce((sum, row) => sum + row.length, 0);
    this.#shared.computeMs += ms;
    return groups.map((_, g) => ({
      vectors: vectors[g] ?? [],
      computed: computed[g] ?? [],
      computeMs: (computed[g] ?? []).map((c) => (total === 0 ? 0 : (ms * c) / total)),
      passShares: passShares[g] ?? [],
    }));
  }

  /** Token totals of `forwardSharingPrefixes` since load: tokens in, tokens computed. */
  prefixReuseStats(): PrefixReuseStats {
    return { ...this.#shared };
  }

  /**
   * Strings neutralized in untrusted values besides the template's own delimiters:
   * assay.json `delimiters` and the role markers the chat template writes as plain text.
   */
  get delimiters(): string[] {
    return [...(this.config.delimiters ?? []), ...(this.chat?.markers ?? [])];
  }

  /**
   * What the untrusted values of `template` go through (question, answer, metadata): its
   * delimiters and the chat template's plain-text markers broken where a reader could see
   * one, and the tokenizer's added tokens where the tokenizer would read one. Build it once
   * per template (the matcher compiles every delimiter).
   */
  untrustedFilter(template: Template): UntrustedFilter | null {
    return untrustedFilter(template, this.delimiters, this.tokenGuard);
  }

  /** Fits a prompt in the tokenization thread (same result as fitPrompt with this tokenizer). */
  fit(pieces: PromptPiece[], options: FitOptions): Promise<FitResult> {
    return this.fitThread.fit(pieces, options);
  }

  /** Graph inputs and outputs (the session itself lives in the inference thread). */
  get session(): SessionInfo {
    return this.runner.session;
  }

  get paddingSide(): "left" | "right" {
    return this.runner.paddingSide;
  }

  /** The graph was rewritten by `assay model prepare`: outputs are [batch, width]. */
  get prepared(): boolean {
    return this.runner.io.prepared;
  }

  /**
   * The vector of `output` at the score position of `ids` (from `tokenizer.encode(text,
   * true)`): the text's last token, before any appended special token. Through the batcher.
   * `scoreTokenIds` (the scale's ids) is what a graph prepared for a distribution head
   * returns log-probabilities of; other graphs ignore it.
   */
  forward(
    ids: readonly number[],
    output: string,
    scoreTokenIds: readonly number[] = [],
  ): Promise<BatchedResult<Float32Array>> {
    return this.batcher(output, scoreTokenIds).submit(ids);
  }

  /** One batcher per output (and, on a prepared graph, per scale: rows of a pass share it). */
  batcher(output: string, scoreTokenIds: readonly number[] = []): Batcher<Float32Array> {
    const ids = this.runner.io.hasScoreTokenIds ? scoreTokenIds : [];
    const key = ids.length === 0 ? output : `${output}:${ids.join(",")}`;
    let batcher = this.#batchers.get(key);
    if (batcher === undefined) {
      batcher = new Batcher((rows) => this.runner.run(rows, output, ids), this.batchOptions);
      this.#batchers.set(key, batcher);
    }
    return batcher;
  }

  /** Bytes of output tensors onnxruntime returned, and the rows they held, since load. */
  outputTotals(): { bytes: number; rows: number } {
    return { ...this.runner.session.outputTotals };
  }

  stats(): BatchStats {
    const total: BatchStats = {
      batches: 0,
      rows: 0,
      realTokens: 0,
      computedTokens: 0,
      computeMs: 0,
    };
    for (const batcher of this.#batchers.values()) {
      const s = batcher.stats();
      total.batches += s.batches;
      total.rows += s.rows;
      total.realTokens += s.realTokens;
      total.computedTokens += s.computedTokens;
      total.computeMs += s.computeMs;
    }
    return total;
  }

  /**
   * Every forward pass since load, both paths together: prompt tokens scored, tokens
   * computed for real (a shared prefix once) and positions computed with padding.
   */
  tokenTotals(): {
    promptTokens: number;
    computedTokens: number;
    paddedTokens: number;
    passes: number;
  } {
    const plain = this.stats();
    const shared = this.#shared;
    return {
      promptTokens: plain.realTokens + shared.inputTokens,
      computedTokens: plain.realTokens + shared.computedTokens,
      paddedTokens: plain.computedTokens + shared.paddedTokens,
      passes: plain.batches + shared.passes,
    };
  }

  /** Releases the session and stops the fit thread; a second call waits for the first. */
  close(): Promise<void> {
    this.#closing ??= Promise.all([this.runner.session.release(), this.fitThread.close()]).then(
      () => undefined,
    );
    return this.#closing;
  }
}
