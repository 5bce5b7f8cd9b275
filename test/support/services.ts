import { randomUUID } from "node:crypto";
import { readEnv } from "@assay/core";
import { connectRedisOrCluster, scanKeys } from "@assay/queue";

export { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/stores";

// The services every distributed test talks to (CI starts them: .ci/services.sh).
export const REDIS_URL = readEnv().REDIS_URL;

/** A queue prefix no other test uses, so tests never see each other's jobs. */
export function freshPrefix(): string {
  return `assay-test-${randomUUID().slice(0, 8)}`;
}

/**
 * Deletes every key under `prefix` (what BullMQ's obliterate does for one queue), on every
 * master of a Redis Cluster too, where a prefix without a hash tag is `{prefix:queue}`.
 */
export async function deletePrefix(prefix: string, url = REDIS_URL): Promise<void> {
  const redis = await connectRedisOrCluster(url, { waitThroughOutages: false });
  try {
    for (const pattern of [`${prefix}:*`, `{${prefix}:*`]) {
      await scanKeys(redis, pattern, async (keys) => {
        // One by one: a cluster refuses a DEL of keys in different slots.
        await Promise.all(keys.map((key) => redis.del(key)));
      });
    }
  } finally {
    redis.disconnect();
  }
}

/**
 * The least any wait allows. A bound only turns a hang into a message naming what never
 * happened; on a shared 2-core machine a step that takes seconds alone can take minutes, so
 * no wait gives up sooner than this, whatever it takes on a quiet machine. It stays below
 * the tests' own timeout (vitest.config.ts) so that the message is what a failure shows.
 */
export const PATIENCE_MS = 240_000;

/**
 * Polls `check` until it returns true. `quietMs` is how long it takes on a quiet machine;
 * the wait fails after that or PATIENCE_MS, whichever is longer.
 */
export async function waitFor(
  check: () => Promise<boolean>,
  quietMs: number,
  what: string,
): Promise<void> {
  const limitMs = Math.max(quietMs, PATIENCE_MS);
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${limitMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
