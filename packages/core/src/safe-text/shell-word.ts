/**
 * A word the shell reads back as itself: bare when it is safe, else single-quoted. Commands
 * Assay prints for a person to paste (a resume, a retry, a migrate) are built from these.
 */
export function shellWord(word: string): string {
  return /^[\w./:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
