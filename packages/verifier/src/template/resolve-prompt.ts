import type { Sample } from "@assay/core";
import { PAIR_SLOTS, type PieceMessage, type Template } from "../config/assay-config.js";
import { type UntrustedFilter, untrustedSanitizer } from "./untrusted-text.js";

export type PieceRole = "text" | "question" | "answer" | "criterion" | "slot";

/** One template piece with its value filled in. */
export interface PromptPiece {
  role: PieceRole;
  /** Slot name, or "text" for literal text. */
  name: string;
  prefix: string;
  body: string;
  suffix: string;
  required: boolean;
  priority: number;
  /** The chat message the piece goes into when a chat template is applied. */
  message: PieceMessage;
}

export type ResolvedPrompt =
  | {
      ok: true;
      pieces: PromptPiece[];
      /** Per untrusted slot (`question`, `answer`, a metadata key): occurrences changed, when any. */
      altered: Record<string, number>;
    }
  | { ok: false; message: string };

/**
 * Fills `template` from the sample (question, answer, metadata) and the criterion text.
 * Untrusted values go through `sanitizer` here, before the pieces reach the fit thread,
 * so the fit and the model see the same text; a value without delimiters or tokens stays
 * as is, and each slot that changed is counted in `altered`. Pass the plan's filter (built
 * once); the default rebuilds the template's delimiter sanitizer alone.
 */
export function resolvePrompt(
  template: Template,
  sample: Pick<Sample, "question" | "answer" | "metadata">,
  criterion: string,
  sanitizer: UntrustedFilter | null = untrustedSanitizer(template),
): ResolvedPrompt {
  const pieces: PromptPiece[] = [];
  const altered: Record<string, number> = {};
  for (const piece of template) {
    if ("text" in piece) {
      pieces.push({
        role: "text",
        name: "text",
        prefix: "",
        body: piece.text,
        suffix: "",
        required: true,
        priority: 0,
        message: piece.message ?? "user",
      });
      continue;
    }
    const role = roleOf(piece.slot);
    const value = slotValue(piece.slot, role, sample, criterion);
    // The criterion is the config's own text; every other value comes from the dataset.
    const untrusted = value !== undefined && role !== "criterion" && sanitizer !== null;
    const neutralized = untrusted ? sanitizer.neutralize(value) : null;
    if (neutralized !== null && neutralized.changes > 0) {
      altered[piece.slot] = (altered[piece.slot] ?? 0) + neutralized.changes;
    }
    const body = neutralized === null ? value : neutralized.text;
    if (body === undefined) {
      if (piece.required) {
        return {
          ok: false,
          message: `required slot \`${piece.slot}\` is missing from the sample's metadata`,
        };
      }
      continue;
    }
    // An answer is never dropped: the pairwise judge's two answers no more than the one.
    const required =
      piece.required ||
      role === "answer" ||
      role === "criterion" ||
      (PAIR_SLOTS as readonly string[]).includes(piece.slot);
    pieces.push({
      role,
      name: piece.slot,
      prefix: piece.prefix,
      body,
      suffix: piece.suffix,
      required,
      priority: piece.priority,
      message: piece.message ?? "user",
    });
  }
  return { ok: true, pieces, altered };
}

/** The template filled as is: what a plain `template % (question, answer)` would give. */
export function plainText(pieces: readonly PromptPiece[]): string {
  return pieces.map(pieceText).join("");
}

export function pieceText(piece: PromptPiece): string {
  return piece.prefix + piece.body + piece.suffix;
}

function roleOf(slot: string): PieceRole {
  return slot === "question" || slot === "answer" || slot === "criterion" ? slot : "slot";
}

function slotValue(
  slot: string,
  role: PieceRole,
  sample: Pick<Sample, "question" | "answer" | "metadata">,
  criterion: string,
): string | undefined {
  if (role === "question") return sample.question;
  if (role === "answer") return sample.answer;
  if (role === "criterion") return criterion;
  // Own keys only: a slot named `constructor` must not find Object's constructor.
  const value = Object.hasOwn(sample.metadata, slot) ? sample.metadata[slot] : undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}
