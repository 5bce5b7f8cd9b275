import { InputError, parseAnswerLine } from "@assay/core";
import { readLines } from "../read-lines.js";
import type { AnswerSources } from "./answer-sources.js";

/**
 * Refuses, before the run is registered, an answers file the join could take nothing from:
 * missing, empty, or with no line that is a batch output line of the format (every line
 * malformed, or the other provider's shape). Checked after the run existed, such a file
 * left the run registered and never finished. Each file is read only up to its first
 * usable line, usually the first, so a good file costs one line here; the join still
 * reports every bad line as an input error.
 */
export async function checkAnswerFiles(
  sources: AnswerSources,
  maxLineBytes: number,
): Promise<void> {
  for (const file of sources.files) await checkAnswerFile(file, sources, maxLineBytes);
}

async function checkAnswerFile(
  file: string,
  sources: AnswerSources,
  maxLineBytes: number,
): Promise<void> {
  let first: InputError | undefined;
  try {
    for await (const raw of readLines(file, { maxLineBytes })) {
      if ("problem" in raw) {
        first ??= refusal(file, raw.number, "", `unreadable line (${raw.problem})`, sources);
        continue;
      }
      if (raw.text.trim() === "") continue;
      const parsed = parseAnswerLine(raw.text, sources.format);
      if (parsed.kind !== "refused") return;
      first ??= refusal(file, raw.number, parsed.field, parsed.message, sources);
    }
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") {
      throw new InputError({
        file,
        line: 0,
        field: "",
        message: "answers file not found; no run was registered (check --answers, then run again)",
      });
    }
    throw error;
  }
  throw (
    first ??
    new InputError({
      file,
      line: 0,
      field: "",
      message: "the answers file is empty; no run was registered (check --answers, then run again)",
    })
  );
}

function refusal(
  file: string,
  line: number,
  field: string,
  message: string,
  sources: AnswerSources,
): InputError {
  return new InputError({
    file,
    line,
    field,
    message: `${message}; no line of this file is a ${sources.format} output line, so no run was registered (check the file and --answers-format, then run again)`,
  });
}
