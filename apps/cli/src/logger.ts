import { escapeTerminal, maskSecrets } from "@assay/core";
import { type DestinationStream, type Logger, pino } from "pino";

/**
 * JSON logs on stderr (stdout stays for tables and `--json`). Each line has its connection
 * secrets masked (an error logged from a driver may quote the URL it was given) and the
 * control characters JSON leaves raw (C1, bidi overrides) escaped, since a log line may
 * quote a sample id; it stays valid JSON with the same values.
 */
export function createMaskedLogger(
  level: string,
  name: string,
  destination: DestinationStream = pino.destination(2),
): Logger {
  const write = (line: string) =>
    destination.write(escapeTerminal(maskSecrets(line), { keepNewlines: true }));
  return pino({ name, level }, { write });
}
