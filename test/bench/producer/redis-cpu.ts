import { Redis } from "ioredis";

/** CPU time the Redis server has used so far (user + system), from INFO. */
export async function redisCpuMs(url: string): Promise<number> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    const info = await redis.info("cpu");
    const seconds = (name: string): number =>
      Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(info)?.[1]);
    return (seconds("used_cpu_user") + seconds("used_cpu_sys")) * 1000;
  } finally {
    redis.disconnect();
  }
}

/** Deletes every key of the benchmark's own Redis server, between rounds. */
export async function flushRedis(url: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    await redis.flushall();
  } finally {
    redis.disconnect();
  }
}
