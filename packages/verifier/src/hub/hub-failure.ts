import { HubApiError } from "@huggingface/hub";
import { HubError } from "../errors/hub-error.js";

/** Where a request went: the model, the revision asked for and the Hub's address. */
export interface HubTarget {
  id: string;
  revision: string;
  hubUrl: string;
}

/**
 * A failed Hub request as the user should read it: 401/403 say to set HF_TOKEN and accept
 * the licence (the Hub answers 401 for a model it will not admit exists, too); 404 names
 * the revision or file; anything that never reached the Hub says it needs the network.
 */
export function hubFailure(error: unknown, target: HubTarget, file?: string): HubError {
  const what = `${target.id}@${target.revision}${file === undefined ? "" : `/${file}`}`;
  if (error instanceof HubError) return error;
  if (error instanceof HubApiError) {
    const status = error.statusCode;
    if (status === 401 || status === 403) {
      return new HubError(
        what,
        "access",
        `the Hub answered ${status}: the model is gated or private (or does not exist). Set HF_TOKEN to an access token (${target.hubUrl}/settings/tokens) of an account that has accepted the model's licence at ${target.hubUrl}/${target.id}`,
      );
    }
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
