import { ConfigError } from "@assay/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OwnRedis, startRedis } from "../../../test/distributed/support/redis-server.js";
import { checkEvictionPolicy, connectRedis } from "../src/index.js";

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

  it("names an unreachable server without its password", async () => {
    const attempt = connectRedis("redis://:s3cret-pw@127.0.0.1:1/0", { connectTimeoutMs: 1000 });
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    const message = await attempt.catch((error: Error) => error.message);
    expect(message).toContain("redis://:***@127.0.0.1:1/0");
    expect(message).not.toContain("s3cret-pw");
  });
});
