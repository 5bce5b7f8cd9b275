import { randomUUID } from "node:crypto";
import { readEnv } from "@assay/core";
import { Redis } from "ioredis";

export { DATABASE_URL, dropSchema, freshSchema } from "@assay/test-support/stores";

// The services every distributed test talks to (CI starts them: .ci/services.sh).
export const REDIS_URL = readEnv().REDIS_URL;

/** A queue prefix no other test uses, so tests never see each other's jobs. */
export function freshPrefix(): string {
  return `assay-test-${randomUUID().slice(0, 8)}`;
}

/** Deletes every key under `prefix` (what BullMQ's obliterate does for one queue). */
export async function deletePrefix(prefix: string, url = REDIS_URL): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}

/** Polls `check` until it returns true, failing after `timeoutMs`. */
export async function waitFor(
  check: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
