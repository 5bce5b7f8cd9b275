/**
 * Hides credentials in connection URLs and in any text that may quote one (driver errors,
 * log lines). Works on the raw string, never through `new URL`, so a URL that does not
 * parse (a bad port, a malformed percent escape, an unencoded `/` in the password) is
 * masked as well as a valid one. When in doubt it hides more, never less.
 */

const MASK = "***";

/**
 * A `scheme://...` token inside free text. It ends at whitespace, a double quote or a
 * backslash (so a JSON log line stays valid JSON), a backtick or an angle bracket, not at
 * `'`, which passwords often contain; and not on the punctuation of the sentence around it
 * (`at postgres://h/db: refused`).
 */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/(?:[^\s"\\`<>]*[^\s"\\`<>.,:;!?)\]])?/gi;
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
/** Query keys whose values are credentials: password=, pass=, pwd=, token=, api_key=, ... */
const SECRET_KEY = /pass|pwd|secret|token|key|auth|cred|sig/i;
/** Shorter known secrets are not searched for in free text: they would mask ordinary words. */
const MIN_KNOWN_SECRET = 4;

/** `url` with its password and secret query values replaced by `***`. */
export function redactUrl(url: string): string {
  const scheme = SCHEME.exec(url)?.[0] ?? "";
  const rest = url.slice(scheme.length);
  const at = passwordEnd(rest);
  if (at === -1) return scheme + maskQuery(rest);
  // The user part is masked as a query too: without an `@` in the authority, the text
  // before the last `@` may hold a query of its own.
  const user = rest.slice(0, rest.indexOf(":") + 1);
  return `${scheme}${maskQuery(user)}${MASK}${maskQuery(rest.slice(at))}`;
}

/**
 * `text` with every URL in it redacted, and with the secrets of `knownUrls` (say, the URL a
 * driver was given) hidden wherever they appear, raw or percent-decoded.
 */
export function maskSecrets(text: string, knownUrls: readonly string[] = []): string {
  let masked = text.replace(URL_IN_TEXT, redactUrl);
  const secrets = knownUrls
    .flatMap(secretsOf)
    .filter((secret) => secret.length >= MIN_KNOWN_SECRET)
    .sort((a, b) => b.length - a.length);
  for (const secret of secrets) masked = masked.replaceAll(secret, MASK);
  return masked;
}

/**
 * Index of the `@` ending a `user:password` userinfo, or -1 when there is no password (a
 * user name alone is not a secret). Per the URL standard the userinfo ends at the last `@`
 * before the first `/`, `?` or `#`; when there is none there but an `@` further on, the
 * password itself probably holds one of those characters, so the last `@` is taken.
 */
function passwordEnd(rest: string): number {
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
  const inAuthority = authority.lastIndexOf("@");
  const at = inAuthority !== -1 ? inAuthority : rest.lastIndexOf("@");
  return at !== -1 && rest.slice(0, at).includes(":") ? at : -1;
}

function maskQuery(rest: string): string {
  const start = rest.indexOf("?");
  if (start === -1) return rest;
  const hash = rest.indexOf("#", start);
  const end = hash === -1 ? rest.length : hash;
  const params = rest
    .slice(start + 1, end)
    .split("&")
    .map((param) => {
      const eq = param.indexOf("=");
      if (eq === -1 || !SECRET_KEY.test(safeDecode(param.slice(0, eq)))) return param;
      return `${param.slice(0, eq + 1)}${MASK}`;
    });
  return `${rest.slice(0, start + 1)}${params.join("&")}${rest.slice(end)}`;
}

/** The credentials a URL carries, each raw and percent-decoded. */
function secretsOf(url: string): string[] {
  const rest = url.slice(SCHEME.exec(url)?.[0].length ?? 0);
  const secrets: string[] = [];
  const at = passwordEnd(rest);
  if (at !== -1) secrets.push(rest.slice(rest.indexOf(":") + 1, at));
  const start = rest.indexOf("?");
  if (start !== -1) {
    for (const param of rest.slice(start + 1).split(/[&#@]/)) {
      const eq = param.indexOf("=");
      if (eq !== -1 && SECRET_KEY.test(safeDecode(param.slice(0, eq)))) {
        secrets.push(param.slice(eq + 1));
      }
    }
  }
  return secrets.flatMap((secret) => [secret, safeDecode(secret)]);
}

/** Percent-decoding that leaves a malformed escape (`%zz`) as it is instead of throwing. */
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
