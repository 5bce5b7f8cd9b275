import {
  type BatchRequest,
  type FieldsSpec,
  InputError,
  type PromptTemplate,
  REQUEST_LIMITS,
  type RequestFormat,
  type RequestSettings,
  requestsOfRow,
  type Sample,
} from "@assay/core";
import type { OpenDataset } from "../ingest/open-dataset.js";
import { readDataset } from "../ingest/read-dataset.js";

/** How `assay requests` turns each dataset row into requests. */
export interface RowRequestOptions {
  format: RequestFormat;
  settings: RequestSettings;
  template: PromptTemplate;
  /** The spec's `fields`: the same mapping `assay run` reads the reference with. */
  fields?: FieldsSpec;
  maxLineBytes: number;
  /** Largest file the provider takes (default: its documented limit). */
  maxFileBytes: number;
}

/** One row's requests, each as the JSON text of its line. */
export interface RowRequests {
  line: number;
  /** The prompt as sent: the system prompt (if any) and the filled template. */
  promptChars: number;
  promptText: string;
  requests: { customId: string; json: string; bytes: number }[];
}

/**
 * Streams a reference dataset as requests, a row at a time, in file order. Rows are read
 * as `assay run --answers` reads them (the spec's `fields`, no answers), so the custom ids
 * written are the ids the join looks for. A row that cannot be sent is an InputError
 * naming its line and field: the template reads a field it lacks, the prompt is empty, its
 * id is no custom id the provider takes, or a request is larger than a whole file may be.
 */
export async function* rowRequests(
  dataset: OpenDataset,
  options: RowRequestOptions,
): AsyncGenerator<RowRequests | InputError> {
  const events = readDataset(dataset, {
    maxLineBytes: options.maxLineBytes,
    checkDuplicateIds: false,
    answersJoined: true,
    ...(options.fields !== undefined && { fields: options.fields }),
  });
  for await (const event of events) {
    if (event.kind === "error") {
      yield event.error;
      continue;
    }
    yield requestsOf(dataset.path, event.samples[0] as Sample, options);
  }
}

function requestsOf(file: string, sample: Sample, options: RowRequestOptions) {
  const refuse = (field: string, message: string) =>
    new InputError({ file, line: sample.line, field, message });
  const filled = options.template.render(sample);
  if ("field" in filled) return refuse(filled.field, filled.message);
  if (filled.text.trim() === "") {
    const field = options.template.fields[0] as string;
    return refuse(field, "the prompt is empty (only white space); a provider refuses it");
  }
  const limits = REQUEST_LIMITS[options.format];
  const requests: RowRequests["requests"] = [];
  for (const request of requestsOfRow(options.format, options.settings, sample.id, filled.text)) {
    const idProblem = limits.customIdProblem(request.customId);
    if (idProblem !== undefined) return refuse("id", idProblem);
    const written = lineOf(request);
    if (written.bytes > options.maxFileBytes) {
      return refuse(
        options.template.fields[0] as string,
        `the request is ${written.bytes} bytes, more than a ${options.format} file may hold (${options.maxFileBytes}); shorten the prompt`,
      );
    }
    requests.push(written);
  }
  const system = options.settings.system ?? "";
  return {
    line: sample.line,
    promptChars: system.length + filled.text.length,
    promptText: system === "" ? filled.text : `${system}\n${filled.text}`,
    requests,
  };
}

function lineOf(request: BatchRequest) {
  const json = JSON.stringify(request.body);
  return { customId: request.customId, json, bytes: Buffer.byteLength(json) };
}
