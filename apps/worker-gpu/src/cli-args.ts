/** The `assay` arguments this entry point runs: `assay worker --pool gpu` and its own. */
export function cliArgs(args: readonly string[]): string[] {
  return ["worker", "--pool", "gpu", ...args];
}
