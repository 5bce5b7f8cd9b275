import { ConfigError } from "@assay/core";
import { type OwnRedis, startRedis } from "@assay/test-support/redis-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkEvictionPolicy, connectRedis, describeRedisFault } from "../src/index.js";

describe("Redis checks", () => {
  let evicting: OwnRedis;
  beforeAll(async () => {
    evicting = await startRedis(["--maxmemory-policy", "allkeys-lru"]);
  });
  afterAll(async () => {
    await evicting.remove();
  });

  it("refuses a server whose maxmemory-policy may evict jobs", async () => {
    const redis = await connectRedis(evicting.url);
    try {
      const check = checkEvictionPolicy(redis);
      await expect(check).rejects.toBeInstanceOf(ConfigError);
      await expect(check).rejects.toThrow(/maxmemory-policy is "allkeys-lru".*--allow-eviction/s);
      await expect(checkEvictionPolicy(redis, { allowEviction: true })).resolves.toEqual({
        policy: "allkeys-lru",
        unsafe: true,
      });
      await redis.config("SET", "maxmemory-policy", "noeviction");
      await expect(checkEvictionPolicy(redis)).resolves.toEqual({
        policy: "noeviction",
        unsafe: false,
      });
    } finally {
      redis.disconnect();
    }
  });

  it("quotes why a server that requires a password refused, and connects with REDIS_PASSWORD's", async () => {
    const guarded = await startRedis();
    try {
      // Set once it runs: the helper's readiness probe gives no password.
      const admin = await connectRedis(guarded.url);
      await admin.config("SET", "requirepass", "s3cret-pw");
      admin.disconnect();
      const without = connectRedis(guarded.url, { connectTimeoutMs: 5000 });
      await expect(without).rejects.toBeInstanceOf(ConfigError);
      await expect(without).rejects.toThrow(
        `Redis at ${guarded.url} refused the connection: "NOAUTH Authentication required." It requires a password: set REDIS_PASSWORD`,
      );
      const redis = await connectRedis(guarded.url, { password: "s3cret-pw" });
      try {
        expect(await redis.ping()).toBe("PONG");
        // A command refused later (the password changed under a running producer) is a
        // fault of the server that names it, not a bug.
        await redis.config("SET", "requirepass", "rotated-pw");
        const stale = redis.duplicate({ password: "s3cret-pw", retryStrategy: () => null });
        stale.on("error", () => {});
        const refused = await stale.ping().catch((error: unknown) => error);
        stale.disconnect();
        expect(describeRedisFault(refused, guarded.url)).toMatch(
          /refused the connection: "WRONGPASS invalid username-password pair or user is disabled\."/,
        );
      } finally {
        redis.disconnect();
      }
    } finally {
      await guarded.remove();
    }
  });

  it("names an unreachable server without its password", async () => {
    const attempt = connectRedis("redis://:s3cret-pw@127.0.0.1:1/0", { connectTimeoutMs: 1000 });
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    const message = await attempt.catch((error: Error) => error.message);
    expect(message).toContain("redis://:***@127.0.0.1:1/0");
    expect(message).not.toContain("s3cret-pw");
  });
});
