/**
 * Hostile dataset lines, each with what must become of it. Every kind of bad line a user
 * (or an attacker, or a broken exporter) can write, and odd lines that are fine, mixed
 * among plain good lines. Whatever the store, the transport or `--strict`: every good line
 * is stored and scored, every bad line is an input error naming its line, nothing aborts.
 *
 * Lines are bytes, since several kinds are not valid text (invalid UTF-8, raw NUL).
 * Targets are strings unless a case is about the target: the default spec routes them.
 */

export interface BadLine {
  kind: string;
  bytes: Buffer;
  /** The input error's field. */
  field: string;
  /** What its message must say. */
  message: RegExp;
}

export interface OddGoodLine {
  kind: string;
  bytes: Buffer;
  /** The samples it stores. */
  sampleIds: string[];
}

const MIB = 1 << 20;
const Q = '"question":"q"';
const T = '"target":"a"';
const text = (s: string): Buffer => Buffer.from(s, "utf8");
const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const bytes = (...parts: (string | number[])[]): Buffer =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? text(p) : Buffer.from(p))));

const NUL = /NUL character/;
const SURROGATE = /unpaired UTF-16 surrogate/;
const MALFORMED = /malformed JSON/;
const UTF8 = /invalid UTF-8/;
const TWICE = /appears twice in one object/;
const NOT_OBJECT = /expected a JSON object, got /;
const UNPRINTABLE_ID = /id must be printable, but has U\+/;

/** Written before the bad lines: ids that some bad lines collide with. */
export const ODD_GOOD_LINES: OddGoodLine[] = [
  {
    kind: "crlf line ending",
    bytes: text(`{"id":"crlf",${Q},"answer":"a",${T}}\r`),
    sampleIds: ["crlf"],
  },
  {
    kind: "bidi and zero-width characters in the answer",
    bytes: text(`{"id":"bidi-text",${Q},"answer":"\u202eabc\u200b \u2066x\u2069",${T}}`),
    sampleIds: ["bidi-text"],
  },
  {
    kind: "a plain `constructor` key",
    bytes: text(
      `{"id":"ctor",${Q},"answer":"a",${T},"metadata":{"constructor":"c","prototype":1}}`,
    ),
    sampleIds: ["ctor"],
  },
  {
    kind: "escapes and astral characters",
    bytes: text(`{"id":"esc-\\u00e9-😀",${Q},"answer":"\\ud83d\\ude00 \\u00e9 \\\\u0000",${T}}`),
    sampleIds: ["esc-é-😀"],
  },
  { kind: "an integer id", bytes: text(`{"id":4242,${Q},"answer":"a",${T}}`), sampleIds: ["4242"] },
  {
    kind: "colons and quotes inside strings",
    bytes: text(
      `{"id":"colons",${Q},"answer":"a: \\"b\\": c","target":["12:30"],"metadata":{"k:v":"x:y"}}`,
    ),
    sampleIds: ["colons"],
  },
  {
    kind: "nesting at the limit",
    bytes: text(`{"id":"nest-62",${Q},"answer":"a",${T},"metadata":{"k":${nested(62)}}}`),
    sampleIds: ["nest-62"],
  },
  {
    kind: "the largest safe integer",
    bytes: text(`{"id":"max-safe",${Q},"answer":"a","target":9007199254740991}`),
    sampleIds: ["max-safe"],
  },
  {
    kind: "spaces and tabs between tokens",
    bytes: text(`{ "id" :\t"spaced" , "question" : "q" ,"answer":"a" , "target" : [ "a" ] }`),
    sampleIds: ["spaced"],
  },
  {
    kind: "a NaN-like string target",
    bytes: text(`{"id":"nan-string",${Q},"answer":"NaN","target":"NaN"}`),
    sampleIds: ["nan-string"],
  },
  {
    kind: "an id of exactly 512 characters",
    bytes: text(`{"id":"${"i".repeat(512)}",${Q},"answer":"a",${T}}`),
    sampleIds: ["i".repeat(512)],
  },
  {
    kind: "an id like a candidate id",
    bytes: text(`{"id":"col#1",${Q},"answer":"a",${T}}`),
    sampleIds: ["col#1"],
  },
  {
    kind: "a candidates line",
    bytes: text(`{"id":"pair",${Q},"candidates":[{"answer":"a"},{"answer":"b"}],${T}}`),
    sampleIds: ["pair#0", "pair#1"],
  },
];

export const BAD_LINES: BadLine[] = [
  // What Postgres text / jsonb cannot hold.
  {
    kind: "NUL escape in the id",
    bytes: text(`{"id":"a\\u0000b",${Q},"answer":"a",${T}}`),
    field: "id",
    message: NUL,
  },
  {
    kind: "NUL escape in a metadata value",
    bytes: text(`{"id":"nul-meta",${Q},"answer":"a",${T},"metadata":{"k":"v\\u0000"}}`),
    field: "metadata.k",
    message: NUL,
  },
  {
    kind: "NUL escape deep in metadata",
    bytes: text(`{"id":"nul-deep",${Q},"answer":"a",${T},"metadata":{"a":[{"b":[1,"\\u0000"]}]}}`),
    field: "metadata.a[0].b[1]",
    message: NUL,
  },
  {
    kind: "NUL escape in a metadata key",
    bytes: text(`{"id":"nul-key",${Q},"answer":"a",${T},"metadata":{"k\\u0000":1}}`),
    field: 'metadata["k\\u0000"]',
    message: /this key contains a NUL/,
  },
  {
    kind: "NUL escape in a top-level key",
    bytes: text(`{"id":"nul-top",${Q},"answer":"a",${T},"\\u0000":1}`),
    field: '["\\u0000"]',
    message: /this key contains a NUL/,
  },
  {
    kind: "NUL escape in a candidate answer",
    bytes: text(`{"id":"nul-cand",${Q},"candidates":[{"answer":"ok"},{"answer":"\\u0000"}],${T}}`),
    field: "candidates[1].answer",
    message: NUL,
  },
  {
    kind: "raw NUL byte in a string",
    bytes: bytes(`{"id":"raw-nul",${Q},"answer":"a`, [0], `",${T}}`),
    field: "",
    message: MALFORMED,
  },
  {
    kind: "raw NUL byte between tokens",
    bytes: bytes(`{"id":"raw-nul2",`, [0], `${Q},"answer":"a",${T}}`),
    field: "",
    message: MALFORMED,
  },
  {
    kind: "lone high surrogate in the target",
    bytes: text(`{"id":"lone-hi",${Q},"answer":"a","target":"\\ud800"}`),
    field: "target",
    message: SURROGATE,
  },
  {
    kind: "lone low surrogate in the answer",
    bytes: text(`{"id":"lone-lo",${Q},"answer":"x\\udfff",${T}}`),
    field: "answer",
    message: SURROGATE,
  },
  {
    kind: "reversed surrogate pair in the question",
    bytes: text(`{"id":"lone-rev","question":"\\ude00\\ud83d","answer":"a",${T}}`),
    field: "question",
    message: SURROGATE,
  },
  {
    kind: "lone surrogate in a metadata key",
    bytes: text(`{"id":"lone-key",${Q},"answer":"a",${T},"metadata":{"\\udc00":1}}`),
    field: 'metadata["\\udc00"]',
    message: /this key contains an unpaired/,
  },
  {
    kind: "lone surrogate in a list target",
    bytes: text(`{"id":"lone-list",${Q},"answer":"a","target":["ok","\\udbff"]}`),
    field: "target[1]",
    message: SURROGATE,
  },
  {
    kind: "metadata nested 10,000 levels",
    bytes: text(`{"id":"deep-meta",${Q},"answer":"a",${T},"metadata":{"k":${nested(10_000)}}}`),
    field: `metadata.k${"[0]".repeat(62)}`,
    message: /nested deeper than 64 levels/,
  },
  {
    kind: "a target nested 100 levels",
    bytes: text(`{"id":"deep-target",${Q},"answer":"a","target":{"k":${nested(100)}}}`),
    field: `target.k${"[0]".repeat(62)}`,
    message: /nested deeper than 64 levels/,
  },
  {
    kind: "an integer past 2^53 in metadata",
    bytes: text(
      `{"id":"big-int",${Q},"answer":"a",${T},"metadata":{"snowflake":1234567890123456789}}`,
    ),
    field: "metadata.snowflake",
    message: /cannot be read exactly; write it as a string/,
  },
  {
    kind: "a number that overflows to Infinity",
    bytes: text(`{"id":"huge",${Q},"answer":"a","target":1e400}`),
    field: "target",
    message: /overflows to Infinity/,
  },
  {
    kind: "an id of 1e400",
    bytes: text(`{"id":1e400,${Q},"answer":"a",${T}}`),
    field: "id",
    message: /overflows to Infinity/,
  },
  {
    kind: "an id too long for an index",
    bytes: text(`{"id":"${"x".repeat(3000)}",${Q},"answer":"a",${T}}`),
    field: "id",
    message: /id must be at most 512 characters, got 3000/,
  },
  {
    kind: "token counts past a Postgres integer",
    bytes: text(
      `{"id":"tokens",${Q},"answer":"a",${T},"generator":{"model":"m","input_tokens":3000000000,"output_tokens":1}}`,
    ),
    field: "generator.input_tokens",
    message: /must be at most 2147483647, got 3000000000/,
  },
  {
    kind: "a scorer key too long for an index",
    bytes: text(
      `{"id":"long-key",${Q},"answer":"a",${T},"scorers":[{"name":"exact","key":"${"k".repeat(600)}"}]}`,
    ),
    field: "scorers[0].key",
    message: /at most 512 characters, got 600/,
  },
  // Bytes that are not UTF-8 text.
  {
    kind: "invalid UTF-8",
    bytes: bytes(`{"id":"bad-utf8",${Q},"answer":"`, [0xff, 0xfe], `",${T}}`),
    field: "",
    message: UTF8,
  },
  {
    kind: "an overlong encoding of '/'",
    bytes: bytes(`{"id":"overlong",${Q},"answer":"`, [0xc0, 0xaf], `",${T}}`),
    field: "",
    message: UTF8,
  },
  {
    kind: "a UTF-8-encoded surrogate (CESU-8)",
    bytes: bytes(`{"id":"cesu",${Q},"answer":"`, [0xed, 0xa0, 0x80], `",${T}}`),
    field: "",
    message: UTF8,
  },
  {
    kind: "a truncated multi-byte sequence",
    bytes: bytes(`{"id":"cut-utf8",${Q},"answer":"`, [0xe2, 0x82], `",${T}}`),
    field: "",
    message: UTF8,
  },
  {
    kind: "a byte-order mark mid-file",
    bytes: bytes([0xef, 0xbb, 0xbf], `{"id":"bom",${Q},"answer":"a",${T}}`),
    field: "",
    message: /byte-order mark/,
  },
  {
    kind: "records joined by a bare CR",
    bytes: text(`{"id":"cr1",${Q},"answer":"a",${T}}\r{"id":"cr2",${Q},"answer":"a",${T}}`),
    field: "",
    message: MALFORMED,
  },
  {
    kind: "a line over 1 MiB",
    bytes: text(
      `{"id":"long-line",${Q},"answer":"a",${T},"metadata":{"pad":"${"p".repeat(MIB)}"}}`,
    ),
    field: "",
    message: /line longer than 1048576 bytes/,
  },
  {
    kind: "a 1 MiB answer",
    bytes: text(`{"id":"mib-answer",${Q},"answer":"${"a".repeat(MIB)}",${T}}`),
    field: "",
    message: /line longer than 1048576 bytes/,
  },
  // Keys JavaScript treats specially, and keys written twice.
  {
    kind: "a __proto__ key in metadata",
    bytes: text(`{"id":"proto",${Q},"answer":"a",${T},"metadata":{"__proto__":{"polluted":true}}}`),
    field: "metadata.__proto__",
    message: /`__proto__` is not allowed/,
  },
  {
    kind: "a top-level __proto__ key",
    bytes: text(`{"id":"proto-top",${Q},"answer":"a",${T},"__proto__":{}}`),
    field: "__proto__",
    message: /`__proto__` is not allowed/,
  },
  {
    kind: "constructor.prototype in metadata",
    bytes: text(
      `{"id":"ctor-proto",${Q},"answer":"a",${T},"metadata":{"constructor":{"prototype":{"x":1}}}}`,
    ),
    field: "metadata.constructor",
    message: /prototype-pollution/,
  },
  {
    kind: "the id written twice",
    bytes: text(`{"id":"dup-key-1","id":"dup-key-2",${Q},"answer":"a",${T}}`),
    field: "id",
    message: TWICE,
  },
  {
    kind: "a metadata key written twice",
    bytes: text(`{"id":"dup-key-3",${Q},"answer":"a",${T},"metadata":{"k":1,"k" :2}}`),
    field: "metadata.k",
    message: TWICE,
  },
  {
    kind: "a key written twice, once as escapes",
    bytes: text(`{"id":"dup-key-4",${Q},"answer":"a","\\u0061nswer":"b",${T}}`),
    field: "answer",
    message: TWICE,
  },
  // Not an object, or not JSON.
  {
    kind: "an empty object",
    bytes: text("{}"),
    field: "id",
    message: /id is missing; expected a string or a safe integer/,
  },
  {
    kind: "an array line",
    bytes: text(`[{"id":"arr",${Q},"answer":"a"}]`),
    field: "",
    message: NOT_OBJECT,
  },
  { kind: "a string line", bytes: text('"just text"'), field: "", message: NOT_OBJECT },
  { kind: "a number line", bytes: text("42"), field: "", message: NOT_OBJECT },
  {
    kind: "a null line",
    bytes: text("null"),
    field: "",
    message: /expected a JSON object, got null/,
  },
  {
    kind: "a bare NaN",
    bytes: text(`{"id":"nan",${Q},"answer":"a","target":NaN}`),
    field: "",
    message: MALFORMED,
  },
  {
    kind: "a bare Infinity",
    bytes: text(`{"id":"inf",${Q},"answer":"a","target":-Infinity}`),
    field: "",
    message: MALFORMED,
  },
  {
    kind: "trailing garbage",
    bytes: text(`{"id":"trail",${Q},"answer":"a",${T}} x`),
    field: "",
    message: MALFORMED,
  },
  {
    kind: "a truncated object",
    bytes: text(`{"id":"cut",${Q},"answer":`),
    field: "",
    message: MALFORMED,
  },
  // Wrong ids.
  {
    kind: "a float id",
    bytes: text(`{"id":1.5,${Q},"answer":"a",${T}}`),
    field: "id",
    message: /^id must be a string or a safe integer, got 1\.5$/,
  },
  {
    kind: "a boolean id",
    bytes: text(`{"id":false,${Q},"answer":"a",${T}}`),
    field: "id",
    message: /got false$/,
  },
  {
    kind: "an object id",
    bytes: text(`{"id":{"x":1},${Q},"answer":"a",${T}}`),
    field: "id",
    message: /got an object$/,
  },
  {
    kind: "an id of -0",
    bytes: text(`{"id":-0,${Q},"answer":"a",${T}}`),
    field: "id",
    message: /got -0 \(it would read as 0\)/,
  },
  {
    kind: "an empty id",
    bytes: text(`{"id":"",${Q},"answer":"a",${T}}`),
    field: "id",
    message: /id must not be empty/,
  },
  {
    kind: "a zero-width space in the id",
    bytes: text(`{"id":"zw\u200bsp",${Q},"answer":"a",${T}}`),
    field: "id",
    message: UNPRINTABLE_ID,
  },
  {
    kind: "a bidi override in the id",
    bytes: text(`{"id":"rlo\u202egnp.exe",${Q},"answer":"a",${T}}`),
    field: "id",
    message: UNPRINTABLE_ID,
  },
  {
    kind: "a newline in the task id",
    bytes: text(`{"id":"nl-task","task_id":"a\\nb",${Q},"answer":"a",${T}}`),
    field: "task_id",
    message: /task_id must be printable/,
  },
  {
    kind: "a duplicate id",
    bytes: text(`{"id":"crlf",${Q},"answer":"a",${T}}`),
    field: "id",
    message: /duplicate id "crlf"/,
  },
  {
    kind: "candidates colliding with an earlier `#n` id",
    bytes: text(`{"id":"col",${Q},"candidates":[{"answer":"a"},{"answer":"b"}],${T}}`),
    field: "id",
    message: /duplicate id "col#1" \(first used on line \d+\)/,
  },
  {
    kind: "an id colliding with an earlier candidate",
    bytes: text(`{"id":"pair#0",${Q},"answer":"a",${T}}`),
    field: "id",
    message: /duplicate id "pair#0"/,
  },
  // Wrong shapes.
  {
    kind: "nested lists as the question",
    bytes: text(`{"id":"q-list","question":[["a"]],"answer":"a",${T}}`),
    field: "question",
    message: /question must be a string, got a list/,
  },
  {
    kind: "an empty candidates list",
    bytes: text(`{"id":"no-cands",${Q},"candidates":[],${T}}`),
    field: "candidates",
    message: /must hold at least 1 item, got an empty list/,
  },
  {
    kind: "a candidate without an answer",
    bytes: text(`{"id":"bad-cand",${Q},"candidates":[{"answer":"a"},{"label":true}],${T}}`),
    field: "candidates[1].answer",
    message: /candidates\[1\]\.answer is missing; expected a string/,
  },
  {
    kind: "a candidate with an unknown field",
    bytes: text(`{"id":"odd-cand",${Q},"candidates":[{"answer":"a","score":1}],${T}}`),
    field: "candidates[0]",
    message: /unknown field `score`/,
  },
  {
    kind: "both answer and candidates",
    bytes: text(`{"id":"both",${Q},"answer":"a","candidates":[{"answer":"a"}],${T}}`),
    field: "candidates",
    message: /not both/,
  },
  {
    kind: "an unknown top-level field",
    bytes: text(`{"id":"unknown",${Q},"answer":"a",${T},"kind":"x"}`),
    field: "",
    message: /unknown field `kind`/,
  },
  {
    kind: "a list target holding null",
    bytes: text(`{"id":"null-target",${Q},"answer":"a","target":["a",null]}`),
    field: "target",
    message: /item \[1\] is null$/,
  },
  {
    kind: "a string label",
    bytes: text(`{"id":"str-label",${Q},"answer":"a",${T},"label":"yes"}`),
    field: "label",
    message: /label must be true or false, got "yes"/,
  },
  {
    kind: "no target, so no rule routes it",
    bytes: text(`{"id":"unrouted",${Q},"answer":"a"}`),
    field: "",
    message: /no routing rule matches/,
  },
];

export interface Corpus {
  bytes: Buffer;
  /** Line number → the bad line written there. */
  bad: Map<number, BadLine>;
  /** Sample id → line number, for every line that must be stored. */
  stored: Map<string, number>;
}

/**
 * The corpus file: a good line first (with a byte-order mark, which line 1 may have), then
 * each odd good line and each bad line, with a plain good line after every one of them.
 */
export function buildCorpus(): Corpus {
  const parts: Buffer[] = [];
  const bad = new Map<number, BadLine>();
  const stored = new Map<string, number>();
  let line = 0;
  let plain = 0;
  const add = (bytesOfLine: Buffer): number => {
    parts.push(bytesOfLine, text("\n"));
    line += 1;
    return line;
  };
  const addPlain = (prefix = ""): void => {
    const id = `plain-${plain}`;
    plain += 1;
    stored.set(
      id,
      add(text(`${prefix}{"id":"${id}",${Q},"answer":"a ${id}","target":["a ${id}"]}`)),
    );
  };
  addPlain("\uFEFF");
  for (const odd of ODD_GOOD_LINES) {
    const at = add(odd.bytes);
    for (const id of odd.sampleIds) stored.set(id, at);
    addPlain();
  }
  for (const entry of BAD_LINES) {
    bad.set(add(entry.bytes), entry);
    addPlain();
  }
  return { bytes: Buffer.concat(parts), bad, stored };
}
