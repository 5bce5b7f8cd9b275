export interface SerializeOptions {
  /** Put between tokens: "", " ", "\t". */
  space: string;
  /** Write non-ASCII characters and colons in strings as `\uXXXX` escapes. */
  escapeUnicode: boolean;
  /** Write this object's first key (and value) twice. */
  repeatFirstKeyOf?: object;
}

/** JSON text for a value, written in the ways a dataset file might write it. */
export function serialize(value: unknown, options: SerializeOptions): string {
  const { space } = options;
  if (typeof value === "string") return text(value, options.escapeUnicode);
  if (typeof value !== "object" || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) {
    return `[${space}${value.map((item) => serialize(item, options)).join(`,${space}`)}${space}]`;
  }
  const entries = Object.entries(value).map(
    ([key, item]) =>
      `${text(key, options.escapeUnicode)}${space}:${space}${serialize(item, options)}`,
  );
  if (value === options.repeatFirstKeyOf && entries.length > 0) entries.push(entries[0] as string);
  return `{${space}${entries.join(`,${space}`)}${space}}`;
}

function text(value: string, escapeUnicode: boolean): string {
  const json = JSON.stringify(value);
  if (!escapeUnicode) return json;
  return json.replace(
    /[^\x20-\x7e]|:/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
