/**
 * Where to find JSON in an answer. "whole": the trimmed answer. "fenced": the first
 * ```json (or bare ```) fenced block if there is one, else the whole answer.
 * "first_object": the first balanced `{...}` span that parses.
 */
export type JsonExtract = "whole" | "fenced" | "first_object";

export type ExtractedJson = { ok: true; value: unknown } | { ok: false; message: string };

const FENCE_OPENING = /```(?:json)?[ \t]*\r?\n/i;

export function extractJson(answer: string, mode: JsonExtract): ExtractedJson {
  switch (mode) {
    case "whole":
      return parseJson(answer, "the answer");
    case "fenced": {
      const block = fencedBlock(answer);
      return block === undefined
        ? parseJson(answer, "the answer")
        : parseJson(block, "the fenced block");
    }
    case "first_object":
      return firstObject(answer);
  }
}

// indexOf rather than a lazy regex: `/```\n([\s\S]*?)```/` rescans to the end from every
// unclosed fence, quadratic on an answer full of them.
function fencedBlock(answer: string): string | undefined {
  const opening = FENCE_OPENING.exec(answer);
  if (opening === null) return undefined;
  const start = opening.index + opening[0].length;
  const end = answer.indexOf("```", start);
  return end === -1 ? undefined : answer.slice(start, end);
}

function parseJson(text: string, what: string): ExtractedJson {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { ok: false, message: `${what} is not JSON: ${detail}` };
  }
}

/** Tries each top-level balanced `{...}` span in turn; one pass over the text overall. */
function firstObject(text: string): ExtractedJson {
  let from = text.indexOf("{");
  while (from !== -1) {
    const end = closingBrace(text, from);
    if (end === -1) break;
    const parsed = parseJson(text.slice(from, end + 1), "the object");
    if (parsed.ok) return parsed;
    from = text.indexOf("{", end + 1);
  }
  return { ok: false, message: "no JSON object found in the answer" };
}

/** Index of the brace closing the one at `start`, skipping braces inside strings; -1 if none. */
function closingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{") depth++;
    else if (ch === "}" && --depth === 0) return i;
  }
  return -1;
}
