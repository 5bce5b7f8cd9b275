import { ConfigError, readEnv } from "@assay/core";
import { BullmqTransport, type BullmqTransportOptions, checkEvictionPolicy } from "@assay/queue";
import { openStore, type Store } from "@assay/store";
import { writeErr } from "../output.js";
import { refuseUnmigrated, storeTarget } from "../store-option.js";
import type { DistributedFlags } from "./distributed-options.js";

/**
 * The Postgres store of a distributed run. Every process of the run must see the same
 * database, so the embedded store (one process, one folder) is refused; so is a store
 * whose migrations are missing or behind.
 */
export async function openSharedStore(
  flags: Pick<DistributedFlags, "db" | "dbSchema">,
  options: { create?: boolean } = {},
): Promise<Store> {
  const target = storeTarget(flags.db);
  if (target.databaseUrl === undefined) {
    // The example URL has no password: messages mask passwords, and `***` reads as a typo.
    throw new ConfigError(
      "Distributed mode (produce, worker, status, retry) needs a Postgres server shared by " +
        "the producer and every worker: pass --db postgres://user@host:5432/db or set " +
        "DATABASE_URL. A run scored by `assay run` on the embedded store is read with " +
        "`assay report <run-id>`.",
    );
  }
  const store = await openStore({
    databaseUrl: target.databaseUrl,
    ...(flags.dbSchema !== undefined && { schema: flags.dbSchema }),
    ...options,
  });
  return refuseUnmigrated(store);
}

/** The Postgres server a distributed command opens, if it is one (see `openSharedStore`). */
export function sharedStoreUrl(flags: Pick<DistributedFlags, "db">): string | undefined {
  return storeTarget(flags.db).databaseUrl;
}

/**
 * Connects to Redis and checks that it will not evict jobs. With `--allow-eviction` a
 * non-noeviction policy only warns, loudly, on stderr. `reportOnly` connects without the
 * check, for a command that only reads (`assay status`) and reports the policy itself.
 */
export async function openQueues(
  flags: DistributedFlags,
  tuning: Omit<BullmqTransportOptions, "redisUrl" | "prefix"> = {},
  reportOnly = false,
): Promise<BullmqTransport> {
  const env = readEnv();
  const transport = await BullmqTransport.connect({
    redisUrl: flags.redis ?? env.REDIS_URL,
    ...(env.REDIS_PASSWORD !== undefined && { redisPassword: env.REDIS_PASSWORD }),
    prefix: flags.queuePrefix,
    ...tuning,
  });
  if (reportOnly) return transport;
  try {
    const check = await checkEvictionPolicy(transport.redis, {
      allowEviction: flags.allowEviction === true,
    });
    if (check.unsafe) {
      writeErr(
        `\n*** WARNING: Redis maxmemory-policy is "${check.policy}", not "noeviction". ***\n` +
          "*** Under memory pressure Redis may delete queued jobs and samples will be lost. ***\n" +
          "*** Running anyway because of --allow-eviction. ***\n\n",
      );
    }
    return transport;
  } catch (error) {
    await transport.close();
    throw error;
  }
}
