import type { DatasetReadBack, SampleView, ScoreRecord, UsageRecord } from "@assay/core";
import Table from "cli-table3";
import { cutLines, markCuts, promptCuts } from "./sample-cuts.js";

const STYLE = {
  style: { head: [], border: [] },
  chars: { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" },
};

/** `assay show` for a terminal: where the sample came from, its text, then every score. */
export function renderSampleView(view: SampleView): string {
  const { sample, dataset } = view;
  const label = sample.label === null ? "no label" : `label ${sample.label}`;
  const lines = [
    `Sample ${sample.sampleId} of run ${sample.runId} (task ${sample.taskId}, candidate ${sample.candidateIndex}, ${label})`,
    datasetLine(dataset),
    `metadata  ${JSON.stringify(sample.metadata)}`,
    `generator ${sample.generator === null ? "no usage recorded" : usageText(sample.generator)}`,
  ];
  const cuts = promptCuts(sample.scores);
  const questionCuts = cuts.filter((c) => c.slot === "question");
  const answerCuts = cuts.filter((c) => c.slot === "answer");
  if (dataset.question !== undefined) {
    const heading = questionCuts.length === 0 ? "Question" : "Question (cut to fit: marked where)";
    lines.push("", heading, indent(markCuts(dataset.question, questionCuts)));
  }
  if (dataset.answer !== undefined) {
    const heading = answerCuts.length === 0 ? "Answer" : "Answer (cut to fit: marked where)";
    // A joined answer's note says where it came from: beside the heading, not in the text.
    const from = dataset.answerNote === undefined ? "" : `, ${dataset.answerNote}`;
    lines.push("", `${heading}${from}`, indent(markCuts(dataset.answer, answerCuts)));
  } else if (dataset.answerNote !== undefined) {
    lines.push("", "Answer", indent(dataset.answerNote));
  }
  if (dataset.target !== undefined) lines.push("", `Target    ${JSON.stringify(dataset.target)}`);
  if (dataset.steps !== undefined && dataset.steps.length > 0) {
    lines.push("", `Steps (${dataset.steps.length})`);
    dataset.steps.forEach((step, i) => {
      lines.push(indent(`${i + 1}. ${step}`));
    });
  }
  if (cuts.length > 0) {
    lines.push("", "What the verifier saw", ...cutLines(cuts).map((l) => `  ${l}`));
  }
  lines.push("", scoresTable(sample.scores));
  const details = sample.scores.filter((s) => s.detail !== null);
  if (details.length > 0) {
    lines.push("", "Detail");
    for (const s of details) lines.push(`  ${scoreName(s)}: ${JSON.stringify(s.detail)}`);
  }
  return lines.join("\n");
}

function datasetLine(dataset: DatasetReadBack): string {
  const where =
    dataset.path === null ? `line ${dataset.line}` : `${dataset.path}, line ${dataset.line}`;
  if (dataset.status === "ok") return `dataset   ${where}`;
  const flag = dataset.status === "modified" ? "WARNING" : "NOT SHOWN";
  return `dataset   ${where}\n  ${flag}: ${dataset.message ?? dataset.status}`;
}

function scoresTable(scores: readonly ScoreRecord[]): string {
  if (scores.length === 0) return "Scores: none stored yet";
  const table = new Table({
    head: ["scorer", "rule", "status", "value", "reason", "truncation", "usage"],
    colAligns: ["left", "left", "left", "right", "left", "left", "left"],
    ...STYLE,
  });
  for (const s of scores) {
    table.push([
      scoreName(s),
      s.rule,
      s.status,
      s.value === null ? "" : s.value.toFixed(4),
      s.reason ?? "",
      truncationText(s),
      s.usage === null ? "-" : usageText(s.usage),
    ]);
  }
  return `Scores (${scores.length})\n${table.toString()}`;
}

function scoreName(s: ScoreRecord): string {
  const parts = [s.scorer];
  if (s.criterion !== "") parts.push(`criterion ${s.criterion}`);
  if (s.repetition !== 0) parts.push(`repetition ${s.repetition}`);
  return parts.join(" / ");
}

/** One line per fitted prompt; the criterion and variant only when there are several. */
function truncationText(s: ScoreRecord): string {
  if (s.truncations.length === 0) return "-";
  const several = s.truncations.length > 1;
  return s.truncations
    .map((t) => {
      const prompt = several ? `${t.criterion || "prompt"} #${t.variant}: ` : "";
      if (t.droppedTokens === 0) return `${prompt}${t.originalTokens} tokens, not cut`;
      // Nothing kept: the call was refused (a required piece did not fit), not cut.
      if (t.keptTokens === 0) return `${prompt}${t.originalTokens} tokens, refused: did not fit`;
      const slot = t.slot === "" ? "" : `${t.slot} `;
      return `${prompt}${t.originalTokens} → ${t.keptTokens} tokens (${slot}cut ${t.droppedTokens}, policy ${t.policy})`;
    })
    .join("\n");
}

function usageText(u: UsageRecord): string {
  const apart = [
    u.cachedInputTokens > 0 ? `${u.cachedInputTokens} cached` : "",
    u.cacheWriteTokens > 0 ? `${u.cacheWriteTokens} written to cache${hourPart(u)}` : "",
  ].filter((part) => part !== "");
  const cached = apart.length === 0 ? "" : ` (${apart.join(", ")})`;
  const compute = u.computeMs === null ? "" : `, ${u.computeMs.toFixed(1)} ms`;
  const device = u.device === null ? "" : ` on ${u.device}`;
  return `${u.model}: ${u.inputTokens} in${cached}, ${u.outputTokens} out${compute}${device}`;
}

/** The 1-hour part of the cache writes, priced apart from the 5-minute ones. */
function hourPart(u: UsageRecord): string {
  const hour = u.cacheWrite1hTokens ?? 0;
  return hour > 0 ? `, ${hour} of them for 1 hour` : "";
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n");
}
