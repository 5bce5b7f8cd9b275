import { isAbsolute, relative, resolve } from "node:path";

/** Longer names are refused: no model file needs one, and the file system would refuse it. */
const MAX_PATH = 1024;

/**
 * Why a file path that came from the Hub (its file list, or the manifest a download left)
 * cannot name a file inside a model's folder; null when it can. Such a path is joined onto
 * the cache folder, so anything that could lead elsewhere is refused: an absolute path, a
 * drive letter, a backslash, `..` anywhere, a NUL or other control character, an empty or
 * `.` segment (two spellings of one file). The same rules hold once the path is
 * percent-decoded, since a URL parser turns `%2e%2e` into `..` on its way to the Hub.
 * Other characters (`．．／`, `‥`) are ordinary names on every file system Assay runs on.
 */
export function unsafeRepoPath(path: unknown): string | null {
  if (typeof path !== "string") return "is not a string";
  const raw = unsafeText(path);
  if (raw !== null) return raw;
  const decoded = percentDecoded(path);
  if (decoded === path) return null;
  const why = unsafeText(decoded);
  return why === null ? null : `${why} once percent-decoded`;
}

function unsafeText(path: string): string | null {
  if (path === "") return "is empty";
  if (path.length > MAX_PATH) return `is longer than ${MAX_PATH} characters`;
  if (path.includes("\0")) return "holds a NUL character";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
  if (/[\u0001-\u001f\u007f]/.test(path)) return "holds a control character";
  if (path.includes("\\")) return "holds a backslash (a Windows folder separator)";
  if (path.startsWith("/")) return "is absolute";
  if (/^[A-Za-z]:/.test(path)) return "starts with a drive letter";
  if (path.includes("..")) return "holds `..`";
  const segments = path.split("/");
  if (segments.includes("")) return "has an empty folder name (`//`, or a trailing `/`)";
  if (segments.includes(".")) return "has a `.` folder name";
  return null;
}

/** `text` with its percent escapes decoded, a malformed one left as it is. */
function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(/%[0-9a-f]{2}/gi, (code) =>
      String.fromCharCode(parseInt(code.slice(1), 16)),
    );
  }
}

/**
 * `path` joined onto `dir`, checked to stay inside it: the last guard before a write, after
 * `unsafeRepoPath` has refused the name. Throws when the path would leave `dir`.
 */
export function pathInside(dir: string, path: string): string {
  const why = unsafeRepoPath(path);
  const target = resolve(dir, path);
  const inside = relative(resolve(dir), target);
  if (why !== null || inside === "" || inside.startsWith("..") || isAbsolute(inside)) {
    throw new Error(`refusing to write ${JSON.stringify(path)} outside ${dir}`);
  }
  return target;
}
