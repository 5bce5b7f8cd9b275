import { redactUrl } from "@assay/core";
import { describeRedisRefusal } from "./redis-refusal.js";

// Redis answers a write it cannot take with an error of its own, also from inside the
// Lua scripts BullMQ runs (then followed by "script: <sha>, on @user_script:<line>").
const OUT_OF_MEMORY = /OOM command not allowed when used memory > 'maxmemory'/;
const READ_ONLY = /\bREADONLY\b|read only replica/;
// What ioredis says when a command was cut off or could not be sent: the connection
// closed and did not come back (on a producer's connection a command is retried once).
const CONNECTION_LOST =
  /^Connection is closed\.?$|^Command aborted due to connection close|Reached the max retries per request limit|^Stream isn't writeable/;

/**
 * What a Redis error says about the server, as a sentence that names it, or undefined
 * when it is not a fault of the server (a bug, bad input): out of memory under
 * `noeviction`, a read-only replica, a server that turns this client away (a password
 * required or wrong, protected mode), or gone.
 */
export function describeRedisFault(error: unknown, redisUrl: string): string | undefined {
  const refusal = describeRedisRefusal(error, redisUrl);
  if (refusal !== undefined) return refusal;
  const message = error instanceof Error ? error.message : String(error);
  const where = `Redis at ${redactUrl(redisUrl)}`;
  const oom = OUT_OF_MEMORY.exec(message);
  if (oom !== null) {
    return `${where} refused writes: ${oom[0]} (raise maxmemory, or let the workers drain the queues)`;
  }
  if (READ_ONLY.test(message)) {
    return `${where} is a read-only replica: it takes no jobs (point --redis or REDIS_URL at the primary)`;
  }
  if (CONNECTION_LOST.test(message)) return `lost the connection to ${where}`;
  return undefined;
}
