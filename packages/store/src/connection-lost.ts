import type { StoreDriver } from "./store-driver.js";

// Socket errors of a server that went away or is not (yet) listening.
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTCONN"]);

// SQLSTATEs of a server that ended the session or cannot take one yet: class 08
// (connection exception), and 57P01–57P03 (shut down by an administrator, crash
// shutdown, "the database system is starting up" or in recovery after a crash).
const SERVER_GONE_STATES = /^(08...|57P0[1-3])$/;

// What the driver says when the socket closes under it, or a connect times out.
const DRIVER_MESSAGES =
  /^(Connection terminated( unexpectedly| due to connection timeout)?|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable)$/;

/**
 * True when `error` says the database server is out of reach (killed, restarting, the
 * network gone), not that it refused what was sent: the same statement may succeed once
 * it is back.
 */
export function isConnectionLost(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && (SOCKET_CODES.has(code) || SERVER_GONE_STATES.test(code))) {
    return true;
  }
  if (DRIVER_MESSAGES.test(error.message)) return true;
  return error.cause !== undefined && isConnectionLost(error.cause);
}

/** One round trip to the database: resolves once it answers a query again. */
export async function pingDatabase(driver: StoreDriver): Promise<void> {
  if (driver.kind === "postgres") await driver.pool.query("SELECT 1");
  else await driver.client.query("SELECT 1");
}
