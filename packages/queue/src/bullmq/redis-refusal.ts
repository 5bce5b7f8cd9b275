import { redactUrl } from "@assay/core";

// The replies with which Redis turns a client away, rather than failing one command:
// protected mode (no password set, a client from another host), a password missing or
// wrong, an ACL user without a permission. Redis's own reason comes first, then ours.
const REFUSALS: [RegExp, string][] = [
  [
    /\bDENIED Redis is running in protected mode\b[^.]*\./,
    "Redis takes clients from other hosts only with a password: start it with one (requirepass; " +
      "infra/redis-start.sh reads REDIS_PASSWORD) and give Assay the same one in REDIS_PASSWORD " +
      "or as the password of REDIS_URL",
  ],
  [
    /\bNOAUTH [^.]*\./,
    "It requires a password: set REDIS_PASSWORD, or give it as the password of REDIS_URL (or --redis)",
  ],
  [
    /\bWRONGPASS [^.]*\./,
    "The password given (REDIS_PASSWORD, or the one in REDIS_URL or --redis) is not the one Redis requires",
  ],
  [
    /\bNOPERM [^.\r\n]*/,
    "The Redis user lacks a permission Assay needs: give it every command and key (+@all ~*)",
  ],
];

/**
 * A sentence naming the Redis at `redisUrl`, quoting why it refused this client and saying
 * how to fix it; undefined when `error` is no refusal.
 */
export function describeRedisRefusal(error: unknown, redisUrl: string): string | undefined {
  const message = error instanceof Error ? error.message : String(error);
  for (const [reply, fix] of REFUSALS) {
    const found = reply.exec(message);
    if (found !== null) {
      return `Redis at ${redactUrl(redisUrl)} refused the connection: "${found[0]}" ${fix}`;
    }
  }
  return undefined;
}
