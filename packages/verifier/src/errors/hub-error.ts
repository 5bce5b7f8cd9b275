import { ModelFolderError } from "./model-folder-error.js";

/**
 * Why a hub model could not be fetched: `access` (401/403: a token is missing or has not
 * been granted the model), `not-found` (404: the id, revision or file), `network` (the Hub
 * cannot be reached, or a download was cut), `integrity` (bytes that do not match their hash),
 * `disk` (the cache's disk is full).
 */
export type HubFailure = "access" | "not-found" | "network" | "integrity" | "disk";

/** A hub id that could not be downloaded or whose download was refused; names the file. */
export class HubError extends ModelFolderError {
  override name = "HubError";
  readonly failure: HubFailure;

  constructor(file: string, failure: HubFailure, message: string) {
    super(file, message);
    this.failure = failure;
  }
}
