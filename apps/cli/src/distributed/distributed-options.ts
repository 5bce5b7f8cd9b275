import { DEFAULT_PREFIX } from "@assay/queue/queue-names";
import { type Command, Option, type OptionValues } from "@commander-js/extra-typings";
import { DB_SCHEMA_OPTION } from "../db-option.js";

/** Flags every distributed command (produce, worker, status) shares. */
export interface DistributedFlags {
  db?: string;
  dbSchema?: string;
  redis?: string;
  queuePrefix: string;
  allowEviction?: boolean;
}

export function addDistributedOptions<Args extends unknown[], Opts extends OptionValues>(
  command: Command<Args, Opts>,
) {
  return command
    .option("--db <url>", "Postgres server shared by producer and workers (default: $DATABASE_URL)")
    .option(...DB_SCHEMA_OPTION)
    .option(
      "--redis <url>",
      "Redis URL (default: $REDIS_URL, else redis://127.0.0.1:6379); a URL without a password takes $REDIS_PASSWORD's; the URL of any node of a Redis Cluster connects to the whole cluster",
    )
    .option(
      "--queue-prefix <prefix>",
      "key prefix of Assay's queues in Redis; on a Redis Cluster each queue's keys get the hash tag {<prefix>:<queue>}, unless the prefix holds one ({assay} puts every queue in one slot)",
      DEFAULT_PREFIX,
    )
    .addOption(
      new Option(
        "--allow-eviction",
        "run even though Redis may evict keys (maxmemory-policy is not noeviction): jobs can be lost",
      ),
    );
}
