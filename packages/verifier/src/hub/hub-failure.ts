import { HubApiError } from "@huggingface/hub";
import { HubError } from "../errors/hub-error.js";
import { HubBusy } from "./hub-fetch.js";

/** What a request carries to be let in: nothing, an access token (from where), or the endpoint's credentials. */
export type HubAuth = { kind: "none" } | { kind: "token"; from: string } | { kind: "endpoint" };

/** Where a request went: the model, the revision asked for and the Hub's address. */
export interface HubTarget {
  id: string;
  revision: string;
  /** Without credentials: it appears in messages. */
  hubUrl: string;
  auth: HubAuth;
}

const REASONS: Record<number, string> = {
  429: "too many requests",
  502: "bad gateway",
  503: "service unavailable",
  504: "gateway timeout",
};

/**
 * A failed Hub request as the user should read it: 401/403 say which credentials to set or
 * fix (the Hub answers 401 for a model it will not admit exists, too); 404 names the
 * revision or file; a Hub still busy after the retries says how long it was waited on;
 * anything that never reached the Hub says it needs the network.
 */
export function hubFailure(error: unknown, target: HubTarget, file?: string): HubError {
  const what = `${target.id}@${target.revision}${file === undefined ? "" : `/${file}`}`;
  if (error instanceof HubError) return error;
  if (error instanceof HubBusy) return new HubError(what, "busy", busyMessage(error, target));
  if (error instanceof HubApiError) {
    const status = error.statusCode;
    if (status === 401 || status === 403)
      return new HubError(what, "access", accessMessage(status, target));
    if (status === 404) {
      return new HubError(
        what,
        "not-found",
        `the Hub answered 404: ${file === undefined ? `no model ${target.id} with a revision ${target.revision} (a branch, tag or commit)` : `no file ${file} at this revision`}; check the id and the revision`,
      );
    }
    return new HubError(
      what,
      "network",
      `the Hub answered ${status} for ${error.url}; try again later`,
    );
  }
  const cause = (error as Error).cause instanceof Error ? ((error as Error).cause as Error) : null;
  return new HubError(
    what,
    "network",
    `cannot reach the Hugging Face Hub at ${target.hubUrl} (${cause?.message ?? (error as Error).message}); hub ids need the network the first time. Download the model on a connected machine and pass its local folder instead, e.g. --model ./models/${target.id.split("/")[1]}`,
  );
}

function accessMessage(status: 401 | 403, target: HubTarget): string {
  const { hubUrl, id, auth } = target;
  const licence = `${hubUrl}/${id}`;
  if (auth.kind === "endpoint") {
    return `the Hub at ${hubUrl} answered ${status}: it refused the user name and password in HF_ENDPOINT${status === 403 ? " for this model" : ""}. Check them (in the URL, percent-encode @ as %40, : as %3A, / as %2F); HF_TOKEN is not sent while HF_ENDPOINT carries credentials`;
  }
  if (auth.kind === "token" && status === 401) {
    return `the Hub answered 401: it refused the access token from ${auth.from} (invalid, expired or revoked), or there is no model ${id}. Check the token at ${hubUrl}/settings/tokens, or create a new one, and check the id`;
  }
  if (auth.kind === "token") {
    return `the Hub answered 403: the access token from ${auth.from} was taken, but its account has not accepted the model's licence or the token may not read it. Accept the licence at ${licence} with that account (a fine-grained token also needs read access to gated repositories)`;
  }
  return `the Hub answered ${status}: the model is gated or private (or does not exist). Set HF_TOKEN to an access token (${hubUrl}/settings/tokens) of an account that has accepted the model's licence at ${licence}`;
}

function busyMessage(busy: HubBusy, target: HubTarget): string {
  const { budget } = busy;
  const reason = REASONS[busy.status];
  const answered = `the Hub at ${target.hubUrl} stayed busy: it answered ${busy.status}${reason === undefined ? "" : ` (${reason})`} to ${busy.tries} ${busy.tries === 1 ? "try" : "tries"} of ${busy.url}`;
  const waited = `after ${seconds(busy.waitedMs)} s of waiting on it for this model`;
  const limit =
    busy.askedMs === null
      ? `, the most ${budget.from} (${budget.seconds} s) allows`
      : `, and its Retry-After asks for ${seconds(busy.askedMs)} s more, past the ${budget.seconds} s ${budget.from} allows`;
  return `${answered} ${waited}${limit}. Run the command again later, or set ${budget.from} higher to wait longer`;
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(ms < 10_000 ? 1 : 0);
}
