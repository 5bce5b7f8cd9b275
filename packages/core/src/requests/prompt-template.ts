import type { Sample } from "../sample.js";

/**
 * A prompt template over a sample's fields: `{question}`, `{id}`, `{task_id}`, `{target}`
 * and `{metadata.<key>}` (dotted keys reach nested objects); `{{` and `}}` write a brace.
 * The fields are the mapped ones: the spec's `fields` have already renamed the columns.
 */
export interface PromptTemplate {
  /** The text for one sample, or the field it lacks. */
  render(sample: Sample): { text: string } | { field: string; message: string };
  /** The fields the template reads, in order: an empty prompt names the first. */
  fields: readonly string[];
}

/** A template that cannot be compiled: what is wrong and where. */
export class TemplateError extends Error {
  override name = "TemplateError";
}

type Part = { literal: string } | { field: string; read: (sample: Sample) => unknown };

const TOP_FIELDS = ["question", "id", "task_id", "target"] as const;

export function compileTemplate(template: string): PromptTemplate {
  const parts: Part[] = [];
  let literal = "";
  for (let at = 0; at < template.length; at += 1) {
    const char = template[at] as string;
    if ((char === "{" || char === "}") && template[at + 1] === char) {
      literal += char;
      at += 1;
      continue;
    }
    if (char === "}") {
      throw new TemplateError(`a lone "}" at character ${at + 1}; write "}}" for a brace`);
    }
    if (char !== "{") {
      literal += char;
      continue;
    }
    const end = template.indexOf("}", at);
    if (end < 0) throw new TemplateError(`"{" at character ${at + 1} is never closed`);
    if (literal !== "") parts.push({ literal });
    literal = "";
    parts.push(placeholder(template.slice(at + 1, end).trim()));
    at = end;
  }
  if (literal !== "") parts.push({ literal });
  const fields = parts.flatMap((part) => ("field" in part ? [part.field] : []));
  if (fields.length === 0) {
    throw new TemplateError("the template reads no field; add {question} where the question goes");
  }
  return { fields, render: (sample) => render(parts, sample) };
}

function placeholder(name: string): Part {
  if ((TOP_FIELDS as readonly string[]).includes(name)) {
    const key = name === "task_id" ? "taskId" : (name as "question" | "id" | "target");
    return { field: name, read: (sample) => sample[key] };
  }
  if (name.startsWith("metadata.") && name.length > "metadata.".length) {
    const keys = name.slice("metadata.".length).split(".");
    return { field: name, read: (sample) => readPath(sample.metadata, keys) };
  }
  throw new TemplateError(
    `unknown field {${name}}; a template reads {question}, {id}, {task_id}, {target} or {metadata.<key>}`,
  );
}

function readPath(value: unknown, keys: readonly string[]): unknown {
  let at = value;
  for (const key of keys) {
    if (typeof at !== "object" || at === null || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

function render(parts: readonly Part[], sample: Sample) {
  let text = "";
  for (const part of parts) {
    if ("literal" in part) {
      text += part.literal;
      continue;
    }
    const value = part.read(sample);
    if (value === undefined || value === null) {
      return {
        field: part.field,
        message: `the template reads {${part.field}}, which this row lacks`,
      };
    }
    text += typeof value === "string" ? value : JSON.stringify(value);
  }
  return { text };
}
