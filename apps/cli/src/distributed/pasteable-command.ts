import { readEnv, redactUrl, shellWord } from "@assay/core";
import { DEFAULT_PREFIX } from "@assay/queue/queue-names";
import type { DistributedFlags } from "./distributed-options.js";

/**
 * An `assay` command line that, pasted into a shell, finds the same run in the same
 * services: `words`, then the flags that differ from the defaults (`--queue-prefix`,
 * `--db-schema`), `extra`, `--allow-eviction` when it was given, then `--db` and `--redis` where they were given and differ
 * from DATABASE_URL and REDIS_URL. A URL's password is written `***` (messages never show
 * one), and a shell comment after the command says to put it back.
 */
export function pasteableCommand(
  words: readonly string[],
  flags: Pick<DistributedFlags, "db" | "dbSchema" | "redis" | "queuePrefix" | "allowEviction">,
  extra: readonly string[] = [],
): string {
  const env = readEnv();
  const line = ["assay", ...words.map(shellWord)];
  let masked = false;
  const url = (value: string): string => {
    const redacted = redactUrl(value);
    masked ||= redacted !== value;
    return shellWord(redacted);
  };
  if (flags.queuePrefix !== DEFAULT_PREFIX)
    line.push("--queue-prefix", shellWord(flags.queuePrefix));
  if (flags.dbSchema !== undefined) line.push("--db-schema", shellWord(flags.dbSchema));
  line.push(...extra.map(shellWord));
  // Without it the command is refused by the same Redis that needed it here.
  if (flags.allowEviction === true) line.push("--allow-eviction");
  if (flags.db !== undefined && flags.db !== env.DATABASE_URL) line.push("--db", url(flags.db));
  if (flags.redis !== undefined && flags.redis !== env.REDIS_URL) {
    line.push("--redis", url(flags.redis));
  }
  if (masked) line.push("# put the password back where *** stands");
  return line.join(" ");
}
