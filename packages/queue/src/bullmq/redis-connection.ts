import { ConfigError, maskSecrets, redactUrl } from "@assay/core";
import { Redis } from "ioredis";

export interface RedisConnectOptions {
  /**
   * Commands wait through a Redis outage instead of failing (what BullMQ workers need).
   * Default true; false makes a one-shot command (status) fail fast.
   */
  waitThroughOutages?: boolean;
  /** How long the first connection may take, in ms. Default 5000. */
  connectTimeoutMs?: number;
}

/**
 * Connects to Redis, failing with a ConfigError that names the URL (without its password)
 * when the server cannot be reached at start. Later outages are retried by ioredis.
 */
export async function connectRedis(url: string, options: RedisConnectOptions = {}): Promise<Redis> {
  let client: Redis | undefined;
  try {
    // Inside the try: ioredis throws at once on a URL it cannot parse (a bad port).
    client = new Redis(url, {
      lazyConnect: true,
      connectTimeout: options.connectTimeoutMs ?? 5000,
      maxRetriesPerRequest: options.waitThroughOutages === false ? 1 : null,
      // Reconnect quickly at first, then every 2 s at most, for as long as the process lives.
      retryStrategy: (times) => Math.min(times * 100, 2000),
    });
    // Without a listener ioredis prints every failed reconnect; callers see real failures
    // as rejected commands instead.
    client.on("error", () => {});
    await client.connect();
    await client.ping();
    return client;
  } catch (error) {
    client?.disconnect();
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(
      `Cannot reach Redis at ${redactUrl(url)}: ${maskSecrets(reason, [url]).replace(/\.+$/, "")}. ` +
        "Start it, or point REDIS_URL (or --redis) at a running server.",
    );
  }
}
