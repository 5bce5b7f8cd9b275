/** The `assay` arguments this entry point runs: `assay worker --pool cpu` with the entry point's arguments. */
export function cliArgs(args: readonly string[]): string[] {
  return ["worker", "--pool", "cpu", ...args];
}
