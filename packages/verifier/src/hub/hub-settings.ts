import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { readEnv } from "@assay/core";
import { ModelFolderError } from "../errors/model-folder-error.js";
import { type HubEndpoint, hubEndpoint } from "./hub-endpoint.js";
import type { HubAuth } from "./hub-failure.js";
import type { RetryBudget } from "./hub-fetch.js";

/** Seconds one model's load waits on a busy Hub when neither option nor environment says. */
const DEFAULT_RETRY_SECONDS = 300;

/** What the options and the environment say about reaching the Hub. */
export interface HubSettingsInput {
  cacheDir?: string;
  hubUrl?: string;
  accessToken?: string;
  offline?: boolean;
  retryWaitSeconds?: number;
}

export interface HubSettings {
  cacheDir: string;
  endpoint: HubEndpoint;
  /** Sent as a Bearer token, unless the endpoint carries credentials of its own. */
  accessToken?: string;
  auth: HubAuth;
  offline: boolean;
  retry: RetryBudget;
}

/**
 * Options over the environment: ASSAY_MODEL_CACHE, HF_ENDPOINT, HF_TOKEN (else
 * HUGGING_FACE_HUB_TOKEN, its older name, else the token file), HF_HUB_OFFLINE as
 * huggingface_hub reads them, and ASSAY_HUB_RETRY_WAIT.
 */
export function hubSettings(options: HubSettingsInput): HubSettings {
  const env = readEnv();
  const endpoint = hubEndpoint(
    options.hubUrl ?? env.HF_ENDPOINT ?? "https://huggingface.co",
    options.hubUrl === undefined ? "HF_ENDPOINT" : "the hubUrl option",
  );
  const token = endpoint.basicAuth === undefined ? accessToken(options, env) : null;
  return {
    cacheDir:
      options.cacheDir ?? env.ASSAY_MODEL_CACHE ?? join(homedir(), ".cache", "assay", "models"),
    endpoint,
    ...(token !== null && { accessToken: token.token }),
    // The endpoint's own credentials take the Authorization header, as in huggingface_hub.
    auth:
      endpoint.basicAuth !== undefined
        ? { kind: "endpoint" }
        : token !== null
          ? { kind: "token", from: token.from }
          : { kind: "none" },
    offline: options.offline ?? env.HF_HUB_OFFLINE,
    retry:
      options.retryWaitSeconds !== undefined
        ? { seconds: options.retryWaitSeconds, from: "the retryWaitSeconds option" }
        : {
            seconds: env.ASSAY_HUB_RETRY_WAIT ?? DEFAULT_RETRY_SECONDS,
            from: "ASSAY_HUB_RETRY_WAIT",
          },
  };
}

/** The token to send and where it came from (named in a 401's message); null when none is set. */
function accessToken(
  options: HubSettingsInput,
  env: ReturnType<typeof readEnv>,
): { token: string; from: string } | null {
  const given =
    options.accessToken !== undefined
      ? { token: options.accessToken, from: "the accessToken option" }
      : env.HF_TOKEN !== undefined
        ? { token: env.HF_TOKEN, from: "HF_TOKEN" }
        : env.HUGGING_FACE_HUB_TOKEN !== undefined
          ? { token: env.HUGGING_FACE_HUB_TOKEN, from: "HUGGING_FACE_HUB_TOKEN" }
          : null;
  const token = given ?? tokenFile(env);
  if (token !== null && !token.token.startsWith("hf_")) {
    throw new ModelFolderError(
      given === null ? token.from.replace(/^the token file /, "") : token.from,
      "an access token starts with hf_; copy it from https://huggingface.co/settings/tokens",
    );
  }
  return token;
}

/**
 * The token the Hugging Face clients would send when HF_TOKEN is unset: the file at
 * HF_TOKEN_PATH, else $HF_HOME/token, else ~/.cache/huggingface/token, trimmed. Null when
 * that file does not exist or is empty.
 */
function tokenFile(env: ReturnType<typeof readEnv>): { token: string; from: string } | null {
  const path =
    env.HF_TOKEN_PATH ?? join(env.HF_HOME ?? join(homedir(), ".cache", "huggingface"), "token");
  let token: string;
  try {
    token = readFileSync(path, "utf8").trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new ModelFolderError(
      path,
      `cannot read the Hugging Face token file (${(error as Error).message}); fix its permissions, or set HF_TOKEN`,
    );
  }
  return token === "" ? null : { token, from: `the token file ${path}` };
}
