import { ModelFolderError } from "./model-folder-error.js";

/**
 * Why a hub model could not be fetched: `access` (401/403: a token is missing or has not
 * been granted the model), `not-found` (404: the id, revision or file), `network` (the Hub
 * cannot be reached, or a download was cut), `busy` (429/502/503/504 until the wait budget ran
 * out), `integrity` (bytes that do not match their hash), `unsafe-path` (a file list naming a
 * path that could lead out of the model's folder, or a link in the cache where a folder
 * belongs), `disk` (the cache's disk is full).
 */
export type HubFailure =
  | "access"
  | "not-found"
  | "network"
  | "busy"
  | "integrity"
  | "unsafe-path"
  | "disk";

/** A hub id that could not be downloaded or whose download was refused; names the file. */
export class HubError extends ModelFolderError {
  override name = "HubError";
  readonly failure: HubFailure;
  /** The message without the file it names. */
  readonly reason: string;

  constructor(file: string, failure: HubFailure, message: string, field = "") {
    super(file, message, field);
    this.failure = failure;
    this.reason = message;
  }
}
