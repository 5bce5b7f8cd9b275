import { escapeTerminal, maskSecrets } from "@assay/core/safe-text";
import { isWriteError, writeFailure } from "./out-file.js";

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

/**
 * Runs `write`, which streams into stdout. When stdout's reader goes away (`assay export
 * … | head`) the command stops quietly with exit 0, as Unix tools do, instead of failing
 * with "write EPIPE"; any other failure, such as the store's, is thrown as it was.
 */
export async function toStdout(write: () => Promise<void>): Promise<void> {
  let stdoutError: unknown;
  const record = (error: unknown): void => {
    stdoutError = error;
  };
  process.stdout.on("error", record);
  try {
    await write();
  } catch (error) {
    if (error !== stdoutError) throw error;
    // Output redirected to a full disk is the disk's failure, said as such.
    if (isWriteError(error)) throw writeFailure("to standard output", error);
    if ((error as { code?: unknown }).code !== "EPIPE") throw error;
  } finally {
    process.stdout.off("error", record);
  }
}
