import { type Logger, pino } from "pino";

export type { Logger };

/** JSON logs on stderr, so stdout stays for tables and `--json` output. */
export function createLogger(level: string, name = "assay"): Logger {
  return pino({ name, level }, pino.destination(2));
}
