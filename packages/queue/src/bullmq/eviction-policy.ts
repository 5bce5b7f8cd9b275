import { ConfigError } from "@assay/core";
import type { Redis } from "ioredis";
import { type RedisConnection, serversOf } from "./redis-cluster.js";

export interface EvictionCheck {
  policy: string;
  /** True when the policy may evict queue keys (only allowed with `allowEviction`). */
  unsafe: boolean;
}

/**
 * Reads `maxmemory-policy`. Any policy but `noeviction` lets Redis silently delete jobs
 * under memory pressure, which loses samples; refuse unless the caller explicitly allows it.
 * A server that forbids CONFIG (some managed offerings) is reported as "unknown". Each
 * master of a cluster has its own policy: the first that may evict is the one reported.
 */
export async function checkEvictionPolicy(
  redis: RedisConnection,
  options: { allowEviction?: boolean } = {},
): Promise<EvictionCheck> {
  const policies = await Promise.all(serversOf(redis).map(readPolicy));
  const policy = policies.find((each) => each !== "noeviction") ?? "noeviction";
  if (policy === "noeviction") return { policy, unsafe: false };
  if (options.allowEviction === true) return { policy, unsafe: true };
  throw new ConfigError(
    `Redis maxmemory-policy is "${policy}", expected "noeviction": with eviction Redis may ` +
      "delete queued jobs and lose samples. Set `maxmemory-policy noeviction` (see infra/redis.conf), " +
      "or pass --allow-eviction to run anyway.",
  );
}

async function readPolicy(redis: Redis): Promise<string> {
  try {
    const reply = (await redis.config("GET", "maxmemory-policy")) as unknown;
    const value = Array.isArray(reply) ? reply[1] : undefined;
    return typeof value === "string" ? value : "unknown";
  } catch {
    return "unknown";
  }
}
