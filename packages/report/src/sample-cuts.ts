import type { ScoreRecord } from "@assay/core";

/** Where a verifier prompt cut the question or the answer, as the score's detail records it. */
export interface SlotCut {
  keptChars: number;
  keptTokens: number;
  droppedTokens: number;
}

/** One verifier prompt whose question or answer was cut to fit. */
export interface PromptCut {
  /** "judge (correct #0)": the scorer, and the prompt when it has several. */
  prompt: string;
  slot: "question" | "answer";
  /** Null for a run whose worker did not record where the slot was cut. */
  at: SlotCut | null;
  /** Tokens the whole prompt lost (the slot's and any pieces left out). */
  promptDropped: number;
  /** Optional pieces left out whole, by slot name. */
  leftOut: string[];
}

interface DetailRecord {
  criterion?: unknown;
  variant?: unknown;
  slot?: unknown;
  slotCut?: unknown;
  droppedSlots?: unknown;
  droppedTokens?: unknown;
  keptTokens?: unknown;
}

/**
 * Every prompt of the sample's scores whose question or answer was cut to fit. The score
 * detail says where; a score without one (its worker predates that, or no detail) falls
 * back to its truncations rows, which say how much but not where.
 */
export function promptCuts(scores: readonly ScoreRecord[]): PromptCut[] {
  return scores.flatMap((s) => {
    const fromDetail = detailRecords(s.detail);
    const several = Math.max(fromDetail.length, s.truncations.length) > 1;
    const name = (criterion: string, variant: number) =>
      several || criterion !== "" ? `${s.scorer} (${criterion || "prompt"} #${variant})` : s.scorer;
    if (fromDetail.length > 0) {
      return fromDetail.flatMap((t): PromptCut[] => {
        const slot = t.slot;
        if ((slot !== "question" && slot !== "answer") || Number(t.keptTokens) === 0) return [];
        return [
          {
            prompt: name(String(t.criterion ?? ""), Number(t.variant ?? 0)),
            slot,
            at: slotCutOf(t.slotCut),
            promptDropped: Number(t.droppedTokens ?? 0),
            leftOut: Array.isArray(t.droppedSlots) ? t.droppedSlots.map(String) : [],
          },
        ];
      });
    }
    return s.truncations.flatMap((t): PromptCut[] => {
      if ((t.slot !== "question" && t.slot !== "answer") || t.keptTokens === 0) return [];
      if (t.droppedTokens === 0) return [];
      return [
        {
          prompt: name(t.criterion, t.variant),
          slot: t.slot,
          at: null,
          promptDropped: t.droppedTokens,
          leftOut: [],
        },
      ];
    });
  });
}

function detailRecords(detail: Record<string, unknown> | null): DetailRecord[] {
  const list = detail?.truncations;
  return Array.isArray(list) ? list.filter((t): t is DetailRecord => typeof t === "object") : [];
}

function slotCutOf(value: unknown): SlotCut | null {
  if (typeof value !== "object" || value === null) return null;
  const v = value as Record<string, unknown>;
  const ok = ["keptChars", "keptTokens", "droppedTokens"].every(
    (k) => typeof v[k] === "number" && Number.isInteger(v[k]) && (v[k] as number) >= 0,
  );
  return ok ? { ...(v as unknown as SlotCut) } : null;
}

/**
 * The slot's text with a mark where each prompt cut it: "[… 312 tokens cut …]" naming the
 * prompts. The question keeps its head (the mark follows what the verifier saw); the
 * answer keeps its tail (the mark precedes it). A cut whose place was not recorded is
 * marked at the end the text was cut from, saying so.
 */
export function markCuts(text: string, cuts: readonly PromptCut[]): string {
  if (cuts.length === 0) return text;
  const question = cuts[0]?.slot === "question";
  const byPlace = new Map<number, PromptCut[]>();
  for (const cut of cuts) {
    const place = placeOf(text, cut);
    byPlace.set(place, [...(byPlace.get(place) ?? []), cut]);
  }
  let out = "";
  let from = 0;
  for (const [place, group] of [...byPlace].sort((a, b) => a[0] - b[0])) {
    // The mark takes a line of its own, without blank lines at either end of the text.
    const before = text.slice(from, place);
    const lead = place === 0 || before.endsWith("\n") ? "" : "\n";
    const trail = place === text.length ? "" : "\n";
    out += `${before}${lead}${mark(group, question)}${trail}`;
    from = place;
  }
  return out + text.slice(from);
}

function placeOf(text: string, cut: PromptCut): number {
  if (cut.at === null) return cut.slot === "question" ? text.length : 0;
  const kept = Math.min(cut.at.keptChars, text.length);
  return cut.slot === "question" ? kept : text.length - kept;
}

function mark(group: readonly PromptCut[], question: boolean): string {
  const prompts = group.map((c) => c.prompt).join(", ");
  const first = group[0];
  const saw = question ? "the text above" : "the text below";
  if (first?.at == null) {
    const lost = group.map((c) => c.promptDropped);
    return `[… ${question ? "end" : "start"} of the ${question ? "question" : "answer"} cut for ${prompts}: the prompt lost ${range(lost)} tokens; this run did not record where the cut fell …]`;
  }
  const tokens = range(group.map((c) => c.at?.droppedTokens ?? 0));
  if (first.at.keptChars === 0 && question) {
    return `[… the whole question (${tokens} tokens) was left out for ${prompts} …]`;
  }
  return `[… ${tokens} tokens cut for ${prompts}: the verifier saw ${saw} …]`;
}

/** "312", or "300–312" when the prompts cut at one place lost different counts. */
function range(values: readonly number[]): string {
  const low = Math.min(...values);
  const high = Math.max(...values);
  return low === high ? String(low) : `${low}–${high}`;
}

/** One line per cut prompt: what of the slot the verifier saw, and any pieces left out. */
export function cutLines(cuts: readonly PromptCut[]): string[] {
  return cuts.map((c) => {
    const left = c.leftOut.length === 0 ? "" : `; left out whole: ${c.leftOut.join(", ")}`;
    if (c.at === null) {
      return `${c.prompt}: ${c.slot} cut, the prompt lost ${c.promptDropped} tokens (where in the ${c.slot} was not recorded)${left}`;
    }
    const total = c.at.keptTokens + c.at.droppedTokens;
    const part = c.slot === "question" ? "first" : "last";
    const seen =
      c.at.keptTokens === 0
        ? `the ${c.slot} was left out (${total} tokens)`
        : `saw the ${part} ${c.at.keptChars} characters of the ${c.slot} (${c.at.keptTokens} of ${total} tokens; ${c.at.droppedTokens} cut)`;
    return `${c.prompt}: ${seen}${left}`;
  });
}
