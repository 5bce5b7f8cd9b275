import { mkdir, readFile } from "node:fs/promises";
import {
  compileTemplate,
  type InputError,
  MAX_SAMPLES,
  type PriceTable,
  parsePriceTable,
  REQUEST_LIMITS,
  type RequestFormat,
  type RequestSettings,
  TemplateError,
} from "@assay/core";
import { type DatasetFormat, openDataset } from "@assay/pipeline";
import { estimateRequests, writeRequests } from "@assay/pipeline/requests";
import { CliExit, ExitCode } from "../exit-codes.js";
import { completedExitCode, type InputErrorsFlags } from "../input-errors-exit.js";
import { writeErr } from "../output.js";
import { printEstimate, printWritten } from "../requests-output.js";
import { scorerRegistry } from "../scorer-registry.js";
import { specFor } from "../spec-option.js";
import { assertUsableDataset } from "../usable-dataset.js";

export interface RequestsFlags extends Pick<InputErrorsFlags, "allowInputErrors"> {
  api: RequestFormat;
  model: string;
  system?: string;
  template: string;
  spec?: string;
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  samples: number;
  out: string;
  maxFileRequests?: number;
  maxFileBytes?: number;
  estimate?: boolean;
  prices?: string;
  format?: DatasetFormat;
  maxLineBytes: number;
  json?: boolean;
}

/** Input errors printed in full; the rest are counted. */
const SHOWN_ERRORS = 20;

export async function requestsAction(dataset: string, flags: RequestsFlags): Promise<number> {
  const settings = settingsOf(flags);
  const template = templateOf(flags.template);
  const limits = fileLimits(flags);
  const prices = flags.prices === undefined ? undefined : await loadPrices(flags.prices);
  const spec = await specOf(flags.spec);
  const fields = spec.fields;
  const opened = await openDataset(dataset, {
    ...(flags.format !== undefined && { format: flags.format }),
  });
  let refused = 0;
  const onError = (error: InputError) => {
    refused += 1;
    if (refused <= SHOWN_ERRORS) writeErr(`${error.message}\n`);
  };
  try {
    await assertUsableDataset(opened, flags.maxLineBytes, spec, flags.spec ?? "(default spec)", {
      answersJoined: true,
    });
    const options = {
      format: flags.api,
      settings,
      template,
      ...(fields !== undefined && { fields }),
      maxLineBytes: flags.maxLineBytes,
      maxFileBytes: limits.maxBytes,
      onError,
    };
    if (flags.estimate === true) {
      const estimate = await estimateRequests(opened, options);
      printEstimate(estimate, { model: flags.model, prices, json: flags.json === true });
    } else {
      await mkdir(flags.out, { recursive: true });
      const written = await writeRequests(opened, {
        ...options,
        dir: flags.out,
        maxFileRequests: limits.maxRequests,
      });
      printWritten(written, {
        format: flags.api,
        dataset,
        spec: flags.spec,
        json: flags.json === true,
      });
    }
  } finally {
    await opened.close();
  }
  if (refused > SHOWN_ERRORS) writeErr(`… and ${refused - SHOWN_ERRORS} more rows refused\n`);
  if (refused > 0) writeErr(`${refused} rows refused (not written): fix them and write again\n`);
  return completedExitCode(refused, flags);
}

function settingsOf(flags: RequestsFlags): RequestSettings {
  if (flags.api === "anthropic-batch" && flags.maxTokens === undefined) {
    throw new CliExit(
      ExitCode.usage,
      "--api anthropic-batch needs --max-tokens: Anthropic requires max_tokens on every request.",
    );
  }
  if (flags.samples > MAX_SAMPLES) {
    throw new CliExit(
      ExitCode.usage,
      `Expected --samples to be at most ${MAX_SAMPLES}, got ${flags.samples}.`,
    );
  }
  if (flags.prices !== undefined && flags.estimate !== true) {
    throw new CliExit(ExitCode.usage, "--prices goes with --estimate; add it, or drop --prices.");
  }
  return {
    model: flags.model,
    samples: flags.samples,
    ...(flags.system !== undefined && { system: flags.system }),
    ...(flags.maxTokens !== undefined && { maxTokens: flags.maxTokens }),
    ...(flags.temperature !== undefined && { temperature: flags.temperature }),
    ...(flags.topP !== undefined && { topP: flags.topP }),
  };
}

function templateOf(text: string) {
  try {
    return compileTemplate(text);
  } catch (error) {
    if (error instanceof TemplateError)
      throw new CliExit(ExitCode.usage, `--template: ${error.message}.`);
    throw error;
  }
}

/** The provider's limits, or the lower ones the flags ask for. */
function fileLimits(flags: RequestsFlags) {
  const provider = REQUEST_LIMITS[flags.api];
  const lower = (flag: string, value: number | undefined, limit: number) => {
    if (value === undefined) return limit;
    if (value > limit) {
      throw new CliExit(
        ExitCode.usage,
        `Expected ${flag} to be at most ${limit} (the ${flags.api} limit), got ${value}.`,
      );
    }
    return value;
  };
  return {
    maxRequests: lower("--max-file-requests", flags.maxFileRequests, provider.maxRequests),
    maxBytes: lower("--max-file-bytes", flags.maxFileBytes, provider.maxBytes),
  };
}

/** The spec, loaded and checked as `assay run` loads it: its `fields` map the columns. */
async function specOf(file: string | undefined) {
  const registry = await scorerRegistry({});
  try {
    return await specFor(file, registry);
  } finally {
    await registry.close();
  }
}

async function loadPrices(file: string): Promise<PriceTable> {
  const text = await readFile(file, "utf8").catch(() => {
    throw new CliExit(
      ExitCode.refused,
      `Cannot read the price table ${file}: check the path given to --prices.`,
    );
  });
  return parsePriceTable(text, file);
}
