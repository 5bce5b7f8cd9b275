import { z } from "zod";
import { ConfigError } from "./errors/config-error.js";

const positiveInteger = z
  .string()
  .regex(/^[1-9]\d*$/, "expected an integer from 1 and up")
  .transform(Number);

const EnvSchema = z.object({
  /** Postgres server; when unset the embedded PGlite store is used. */
  DATABASE_URL: z.string().min(1).optional(),
  REDIS_URL: z.string().min(1).default("redis://127.0.0.1:6379"),
  /**
   * The password Redis requires (requirepass), for a REDIS_URL without one: a Secret can
   * hold it as it is, where a URL would need it percent-encoded.
   */
  REDIS_PASSWORD: z
    .string()
    .min(1, "is empty: set it to the password Redis requires, or unset it")
    .optional(),
  ASSAY_LOG_LEVEL: z
    .enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"])
    .default("info"),
  /** Folder of the embedded store. */
  ASSAY_DATA_DIR: z.string().min(1).default(".assay"),
  /**
   * The verifier's batch limits and prefix reuse for `assay run` and `assay worker`: below
   * their flags (--max-batch-tokens, --max-batch-rows, --prefix-reuse), above the model's
   * assay.json. Unset: assay.json decides, else the verifier's defaults.
   */
  ASSAY_MAX_BATCH_TOKENS: positiveInteger.optional(),
  ASSAY_MAX_BATCH_ROWS: positiveInteger.optional(),
  ASSAY_PREFIX_REUSE: z.enum(["on", "off"]).optional(),
  /** Seconds a command that only reads waits for another process to let the embedded store go. */
  ASSAY_STORE_WAIT: z.coerce.number().nonnegative().default(60),
  /** Folder of the hub-model cache (default ~/.cache/assay/models). */
  ASSAY_MODEL_CACHE: z.string().min(1).optional(),
  /**
   * Seconds one hub model's load may spend, in all, waiting on a busy Hub (429, 502, 503,
   * 504; Retry-After honoured) before it fails. Default 300; 0 never asks again.
   */
  ASSAY_HUB_RETRY_WAIT: z
    .string()
    .regex(/^\d+(\.\d+)?$/, "expected seconds, a number from 0 up (0: never ask again)")
    .transform(Number)
    .optional(),
  /** The Hugging Face Hub's address for hub-id verifiers (a mirror or proxy). */
  HF_ENDPOINT: z.url("expected a URL such as https://huggingface.co").optional(),
  /** Access token sent for gated and private hub models (HUGGING_FACE_HUB_TOKEN: its old name). */
  HF_TOKEN: z.string().min(1).optional(),
  HUGGING_FACE_HUB_TOKEN: z.string().min(1).optional(),
  /**
   * Where the token is read from when HF_TOKEN is unset, as the Hugging Face clients do:
   * HF_TOKEN_PATH, else $HF_HOME/token, else ~/.cache/huggingface/token.
   */
  HF_TOKEN_PATH: z.string().min(1).optional(),
  HF_HOME: z.string().min(1).optional(),
  /** 1: hub-id verifiers load only from the cache, never the network. */
  HF_HUB_OFFLINE: z
    .string()
    .toLowerCase()
    .pipe(z.enum(["1", "0", "true", "false", "yes", "no", "on", "off"], "expected 1 or 0"))
    .transform((value) => ["1", "true", "yes", "on"].includes(value))
    .default(false),
});
export type AssayEnv = z.infer<typeof EnvSchema>;

/** Environment variables are read here and nowhere else (ASSAY_DEBUG: errors/debug-enabled.ts). */
export function readEnv(source: NodeJS.ProcessEnv = process.env): AssayEnv {
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`Environment variable ${String(issue?.path[0])}: ${issue?.message}`);
  }
  return parsed.data;
}
