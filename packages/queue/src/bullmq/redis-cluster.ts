import { ConfigError, maskSecrets, redactUrl } from "@assay/core";
import { Cluster, type Redis } from "ioredis";
import { connectRedis, type RedisConnectOptions } from "./redis-connection.js";

/** A single Redis server, or a Redis Cluster reached through any of its nodes. */
export type RedisConnection = Redis | Cluster;

/**
 * Connects to the Redis at `url` (see `connectRedis`). When that server is a node of a
 * Redis Cluster (`INFO cluster`), connects to the whole cluster instead, with `url` as the
 * node it learns the others from, so every process reading one URL agrees on which it is.
 */
export async function connectRedisOrCluster(
  url: string,
  options: RedisConnectOptions = {},
): Promise<RedisConnection> {
  const node = await connectRedis(url, options);
  if (!(await isClusterNode(node))) return node;
  node.disconnect();
  return connectCluster(url, options);
}

/** The servers holding keys: every master of a cluster (each holds its own slots' keys). */
export function serversOf(redis: RedisConnection): Redis[] {
  return redis instanceof Cluster ? redis.nodes("master") : [redis];
}

/** Calls `onKeys` with each page of the keys matching `pattern`, on every server. */
export async function scanKeys(
  redis: RedisConnection,
  pattern: string,
  onKeys: (keys: string[]) => void | Promise<void>,
): Promise<void> {
  for (const server of serversOf(redis)) {
    let cursor = "0";
    do {
      const [next, keys] = await server.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      cursor = next;
      await onKeys(keys);
    } while (cursor !== "0");
  }
}

async function isClusterNode(redis: Redis): Promise<boolean> {
  // A server that refuses INFO (renamed on some managed services) is taken as a single one.
  const info = await redis.info("cluster").catch(() => "");
  return /^cluster_enabled:1\r?$/m.test(info);
}

async function connectCluster(url: string, options: RedisConnectOptions): Promise<Cluster> {
  const cluster = new Cluster([url], {
    lazyConnect: true,
    clusterRetryStrategy: (times) => Math.min(times * 100, 2000),
    // The nodes it learns of get these options, not the seed URL's credentials.
    redisOptions: {
      connectTimeout: options.connectTimeoutMs ?? 5000,
      maxRetriesPerRequest: options.waitThroughOutages === false ? 1 : null,
      disableClientInfo: true,
      ...credentialsOf(url, options.password),
    },
  });
  // As for a single server: failures reach callers as rejected commands.
  cluster.on("error", () => {});
  try {
    await cluster.connect();
    return cluster;
  } catch (error) {
    cluster.disconnect();
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(
      `Cannot reach the Redis Cluster of ${redactUrl(url)}: ` +
        `${maskSecrets(reason, [url]).replace(/\.+$/, "")}. Every node it announces (CLUSTER ` +
        "SLOTS) must be reachable from here.",
    );
  }
}

function credentialsOf(
  url: string,
  fallbackPassword: string | undefined,
): { username?: string; password?: string; tls?: object } {
  // connectRedis has read the URL already; ioredis also takes some that URL cannot.
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  const password =
    parsed !== undefined && parsed.password !== ""
      ? decodeURIComponent(parsed.password)
      : fallbackPassword;
  return {
    ...(parsed !== undefined &&
      parsed.username !== "" && {
        username: decodeURIComponent(parsed.username),
      }),
    ...(password !== undefined && { password }),
    ...(parsed?.protocol === "rediss:" && { tls: {} }),
  };
}
