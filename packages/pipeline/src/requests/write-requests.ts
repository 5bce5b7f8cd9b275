import { InputError } from "@assay/core";
import type { OpenDataset } from "../ingest/open-dataset.js";
import { type RequestFile, RequestFileWriter } from "./request-files.js";
import { type RowRequestOptions, rowRequests } from "./row-requests.js";

export interface WriteRequestsOptions extends RowRequestOptions {
  /** Folder the numbered files go into (it must exist). */
  dir: string;
  /** Requests per file (default: the provider's limit; lower only). */
  maxFileRequests: number;
  /** Called for each row that is not written, in file order. */
  onError: (error: InputError) => void;
}

export interface WrittenRequests {
  files: RequestFile[];
  rows: number;
  requests: number;
  refusedRows: number;
}

/** Streams a dataset into request files: one row in memory, one file's custom ids. */
export async function writeRequests(
  dataset: OpenDataset,
  options: WriteRequestsOptions,
): Promise<WrittenRequests> {
  const writer = new RequestFileWriter(options.dir, options.format, {
    maxRequests: options.maxFileRequests,
    maxBytes: options.maxFileBytes,
  });
  const earlier = await writer.assertNoEarlierFiles();
  if (earlier !== undefined) {
    throw new InputError({
      file: options.dir,
      line: 0,
      field: "",
      message: `already holds ${earlier} from an earlier call; a stale file would be sent with the new ones: remove the ${options.format}-* files or choose another --out`,
    });
  }
  const written: WrittenRequests = { files: [], rows: 0, requests: 0, refusedRows: 0 };
  try {
    for await (const row of rowRequests(dataset, options)) {
      if (row instanceof InputError) {
        written.refusedRows += 1;
        options.onError(row);
        continue;
      }
      const duplicate = row.requests.find((r) => writer.earlierLineOf(r.customId) !== undefined);
      if (duplicate !== undefined) {
        written.refusedRows += 1;
        options.onError(duplicateError(dataset.path, row.line, duplicate.customId, writer));
        continue;
      }
      for (const request of row.requests) {
        await writer.write(request.customId, request.json, request.bytes, row.line);
      }
      written.rows += 1;
      written.requests += row.requests.length;
    }
  } finally {
    written.files = await writer.close();
  }
  return written;
}

function duplicateError(file: string, line: number, customId: string, writer: RequestFileWriter) {
  return new InputError({
    file,
    line,
    field: "id",
    message: `duplicate custom_id "${customId}" (line ${writer.earlierLineOf(customId)} gave it first); a provider refuses a batch with two`,
  });
}
