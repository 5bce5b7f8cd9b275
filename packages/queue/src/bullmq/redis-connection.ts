import { ConfigError, maskSecrets, redactUrl } from "@assay/core";
import { Redis } from "ioredis";
import { describeRedisRefusal } from "./redis-refusal.js";

export interface RedisConnectOptions {
  /**
   * Commands wait through a Redis outage instead of failing (what BullMQ workers need).
   * Default true; false makes a one-shot command (status) fail fast.
   */
  waitThroughOutages?: boolean;
  /** How long the first connection may take, in ms. Default 5000. */
  connectTimeoutMs?: number;
  /** The password Redis requires (REDIS_PASSWORD); a password in the URL takes precedence. */
  password?: string;
}

/**
 * Connects to Redis, failing with a ConfigError that names the URL (without its password)
 * when the server cannot be reached at start, quoting the server's reason when it refused
 * this client (protected mode, no or a wrong password). Later outages are retried by ioredis.
 */
export async function connectRedis(url: string, options: RedisConnectOptions = {}): Promise<Redis> {
  let client: Redis | undefined;
  let refusal: string | undefined;
  try {
    // Inside the try: ioredis throws at once on a URL it cannot parse (a bad port).
    client = new Redis(url, {
      lazyConnect: true,
      connectTimeout: options.connectTimeoutMs ?? 5000,
      maxRetriesPerRequest: options.waitThroughOutages === false ? 1 : null,
      // Reconnect quickly at first, then every 2 s at most, for as long as the process lives.
      retryStrategy: (times) => Math.min(times * 100, 2000),
      // ioredis's first command would otherwise be CLIENT SETINFO, whose error it drops: a
      // server in protected mode answers it with its refusal and closes, and all that is
      // left to say is "Connection is closed". Then the ready check hears the refusal.
      disableClientInfo: true,
      ...(options.password !== undefined && !hasPassword(url) && { password: options.password }),
    });
    // Without a listener ioredis prints every failed reconnect; callers see real failures
    // as rejected commands instead. A refusal arrives only here, before the connection closes.
    client.on("error", (error) => {
      refusal = describeRedisRefusal(error, url) ?? refusal;
    });
    await client.connect();
    await client.ping();
    return client;
  } catch (error) {
    client?.disconnect();
    if (refusal !== undefined) throw new ConfigError(`${refusal}.`);
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(
      `Cannot reach Redis at ${redactUrl(url)}: ${maskSecrets(reason, [url]).replace(/\.+$/, "")}. ` +
        "Start it, or point REDIS_URL (or --redis) at a running server.",
    );
  }
}

function hasPassword(url: string): boolean {
  try {
    return new URL(url).password !== "";
  } catch {
    // ioredis reports a URL it cannot read; no password of ours makes it readable.
    return false;
  }
}
