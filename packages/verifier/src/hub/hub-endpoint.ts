import { ModelFolderError } from "../errors/model-folder-error.js";

/** The Hub's address split from the credentials it may carry (`https://user:pass@host/path`). */
export interface HubEndpoint {
  /** The address without credentials: what every request and every message uses. */
  url: string;
  /** `Basic …` for the user name and password the address carried; sent to its origin only. */
  basicAuth?: string;
  /** The origin `basicAuth` is sent to. */
  origin: string;
}

/**
 * The endpoint of `HF_ENDPOINT` (or the `hubUrl` option). Node's fetch refuses a URL that
 * carries credentials, so a mirror behind a password (`https://user:pass@host`) is sent them
 * as HTTP Basic auth instead, to its own origin only, as huggingface_hub's HTTP clients do;
 * they never appear in a request URL or a message.
 */
export function hubEndpoint(address: string, from: string): HubEndpoint {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new ModelFolderError(
      from,
      "is not a URL; set it to the Hub's address, e.g. https://huggingface.co",
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ModelFolderError(
      from,
      `is a ${url.protocol} URL; the Hub is reached over https (or http)`,
    );
  }
  const user = decoded(url.username, from);
  const password = decoded(url.password, from);
  url.username = "";
  url.password = "";
  const bare = url.href.replace(/\/+$/, "");
  if (user === "" && password === "") return { url: bare, origin: url.origin };
  const basicAuth = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
  return { url: bare, origin: url.origin, basicAuth };
}

function decoded(part: string, from: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new ModelFolderError(
      from,
      "holds a user name or password with a malformed percent escape; write `%` in it as %25 (and `@` as %40, `:` as %3A, `/` as %2F)",
    );
  }
}
