import type { CalibrationSummary } from "@assay/core";
import type { DatasetFormat } from "@assay/pipeline";
import Table from "cli-table3";
import { CliExit, ExitCode } from "../exit-codes.js";
import { readLabelledSamples } from "../labelled-samples.js";
import { requireModelTools } from "../model-tools.js";
import type { DeviceName } from "../options.js";
import { writeErr, writeOut } from "../output.js";
import { downloadOption } from "../progress/download-view.js";
import { requireVerifier } from "../scorer-registry.js";

export interface FitFlags {
  out: string;
  folds: number;
  seed: number;
  device?: DeviceName;
  json?: boolean;
  format?: DatasetFormat;
}

export interface EvalFlags {
  device?: DeviceName;
  json?: boolean;
  format?: DatasetFormat;
}

/** Skipped or unscored samples named on stderr; the rest are counted. */
const LISTED = 5;

export async function fitAction(source: string, file: string, flags: FitFlags): Promise<void> {
  const samples = await readLabelledSamples(file, flags.format);
  const verifier = await requireVerifier();
  const tools = await requireModelTools();
  const model = await verifier.loadModel(source, deviceOption(flags.device));
  let fitted: Awaited<ReturnType<typeof tools.fitProbe>>;
  try {
    fitted = await tools.fitProbe(model, samples, { folds: flags.folds, seed: flags.seed });
  } catch (error) {
    // Too few runnable answers of a label (after skipping those that did not fit).
    if (error instanceof RangeError) throw new CliExit(ExitCode.refused, error.message);
    throw error;
  } finally {
    await model.close();
  }
  listProblems(
    "left out (prompt could not be built or fitted)",
    fitted.skipped.map((s) => ({ id: s.sample.id, line: s.sample.line, why: s.message })),
  );
  const written = await tools.writeProbeModel(model.dir, flags.out, fitted);
  const { report } = fitted;
  if (flags.json === true) {
    writeOut(`${JSON.stringify({ ...report, dir: written.dir }, null, 2)}\n`);
  } else {
    writeOut(
      `${[
        `Probe fitted on ${report.samples} answers (${report.positives} labelled true) from ${report.output}, width ${report.hiddenSize}`,
        `  λ = ${report.lambda} chosen by ${report.folds}-fold cross-validation (seed ${report.seed})${edgeNote(report.lambda, report.path)}${report.converged ? "" : "; the final fit stopped at its iteration limit"}`,
        `Held out (each answer scored by a probe fitted without its fold):`,
        metricsTable(report.heldOut),
      ].join("\n")}\n`,
    );
  }
  const graph = written.graphFiles
    .map((f) => `${f.name} (${f.linked ? "hard-linked" : "copied"})`)
    .join(", ");
  writeErr(
    `Wrote ${written.dir}: assay.json with the probe head, probe-fit.json; onnx: ${graph}\nNext: assay probe eval ${written.dir} <other labelled answers>\n`,
  );
}

export async function evalAction(source: string, file: string, flags: EvalFlags): Promise<void> {
  const samples = await readLabelledSamples(file, flags.format);
  const verifier = await requireVerifier();
  const tools = await requireModelTools();
  const model = await verifier.loadModel(source, deviceOption(flags.device));
  let evaluation: Awaited<ReturnType<typeof tools.evaluateHead>>;
  try {
    evaluation = await tools.evaluateHead(model, samples);
  } finally {
    await model.close();
  }
  listProblems(
    "unscored",
    evaluation.unscored.map((u) => ({
      id: u.sample.id,
      line: u.sample.line,
      why: `${u.reason}: ${u.message}`,
    })),
  );
  if (flags.json === true) {
    const unscored = evaluation.unscored.length;
    writeOut(`${JSON.stringify({ ...evaluation, unscored }, null, 2)}\n`);
  } else {
    writeOut(
      `${evaluation.head} head of ${evaluation.model} on ${evaluation.summary.count} scored answers (${evaluation.summary.positives} labelled true):\n${metricsTable(evaluation.summary)}\n`,
    );
  }
}

/** The chosen λ at an end of the tried range: the best value may lie beyond it. */
function edgeNote(lambda: number, path: readonly { lambda: number }[]): string {
  const tried = path.map((p) => p.lambda);
  if (lambda === Math.min(...tried))
    return ", the weakest tried (the labels may be nearly separable)";
  if (lambda === Math.max(...tried))
    return ", the strongest tried (the features say little about the labels)";
  return "";
}

function deviceOption(device: DeviceName | undefined) {
  return { ...(device === undefined ? {} : { device }), ...downloadOption() };
}

/** One row of the figures `probe fit` and `probe eval` print. */
export function metricsTable(summary: CalibrationSummary): string {
  const table = new Table({
    head: ["answers", "AUROC", "accuracy@0.5", "Brier", "ECE (10 bins)"],
    style: { head: [], border: [] },
  });
  table.push([
    summary.count,
    figure(summary.auroc),
    figure(summary.accuracy),
    figure(summary.brier),
    figure(summary.ece),
  ]);
  return table.toString();
}

function figure(value: number | null): string {
  return value === null ? "–" : value.toFixed(3);
}

function listProblems(what: string, rows: { id: string; line: number; why: string }[]): void {
  if (rows.length === 0) return;
  const shown = rows.slice(0, LISTED).map((r) => `  line ${r.line} (${r.id}): ${r.why}`);
  const more = rows.length > LISTED ? [`  … and ${rows.length - LISTED} more`] : [];
  writeErr(`${rows.length} answers ${what}:\n${[...shown, ...more].join("\n")}\n`);
}
