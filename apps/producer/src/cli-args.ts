/** The `assay` arguments this entry point runs: `assay produce` with the entry point's arguments. */
export function cliArgs(args: readonly string[]): string[] {
  return ["produce", ...args];
}
