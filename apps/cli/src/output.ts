import { escapeTerminal, maskSecrets } from "@assay/core/safe-text";

/**
 * What the CLI prints goes through here. Text that quotes a dataset (ids, input errors) must
 * not move the cursor, recolour the terminal or reorder what is shown, so control characters
 * are escaped; multi-line output keeps its newlines, and JSON stays valid JSON with the same
 * value. Messages on stderr (errors, notices) may quote a connection URL, so its secrets are
 * masked too; results on stdout are data and keep every other character.
 */
export function writeOut(text: string): void {
  process.stdout.write(escapeTerminal(text, { keepNewlines: true }));
}

export function writeErr(text: string): void {
  process.stderr.write(safeMessage(text));
}

export function safeMessage(text: string): string {
  return escapeTerminal(maskSecrets(text), { keepNewlines: true });
}
