import type { EventEmitter } from "node:events";
import type { Logger } from "../logger.js";
import { ServiceOutage } from "./service-outage.js";

// Socket errors of a server that went away, is not listening or cannot be reached.
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
// What ioredis says of a connection that closed under a command, and what Redis answers
// while it loads its AOF after a restart.
const CONNECTION_MESSAGES =
  /^Connection is closed\.?$|^Command aborted due to connection close|^Stream isn't writeable|^connect ETIMEDOUT|^LOADING /;

/** True when a Redis client's error says the server is out of reach, not that it refused a command. */
export function isRedisUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && SOCKET_CODES.has(code)) return true;
  return CONNECTION_MESSAGES.test(error.message);
}

/**
 * A worker's view of its Redis. ioredis reconnects by itself (every 2 s at most) and
 * BullMQ takes jobs again once it has; what is left is to say so. The transport's own
 * connection decides: its first error starts the outage (one warning, repeated every
 * 30 s while it lasts), its `ready` after a reconnect ends it (one line, with the
 * outage's length). The same outage seen through BullMQ's other connections (the
 * worker's blocking one, each queue's events) is only swallowed by `noticed`.
 */
export class RedisOutage {
  readonly service: ServiceOutage;

  constructor(options: { name: string; log: Logger; repeatMs?: number }) {
    this.service = new ServiceOutage({
      service: "redis",
      name: options.name,
      log: options.log,
      meanwhile: "taking no jobs until it is back, reconnecting",
      afterwards: "taking jobs again",
      ...(options.repeatMs !== undefined && { repeatMs: options.repeatMs }),
    });
  }

  /** Follows the transport's connection (an ioredis client or cluster). */
  watch(connection: EventEmitter): void {
    connection.on("error", (error: unknown) => {
      if (isRedisUnreachable(error)) this.service.failed(messageOf(error));
    });
    connection.on("ready", () => this.service.back());
  }

  /**
   * An error BullMQ reported: true when it is the server being out of reach (followed
   * through the watched connection, so not to be logged again), false otherwise.
   */
  noticed(error: unknown): boolean {
    return isRedisUnreachable(error);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
