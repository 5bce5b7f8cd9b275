import type { SqlRunner } from "./sql-runner.js";
import type { StoreDriver } from "./store-driver.js";

/**
 * Runs `work` in one transaction on either driver: every statement it sends through the
 * runner commits together or not at all, and readers never see half of it.
 */
export async function inTransaction<T>(
  driver: StoreDriver,
  work: (runner: SqlRunner) => Promise<T>,
): Promise<T> {
  if (driver.kind === "pglite") {
    return driver.client.transaction((tx) =>
      work({
        async query<R>(text: string, params: unknown[] = []) {
          const result = await tx.query<R>(text, params);
          return { rows: result.rows, rowCount: result.affectedRows ?? 0 };
        },
      }),
    );
  }
  const client = await driver.pool.connect();
  // One connection runs one statement at a time: callers may still fire several at once.
  let previous: Promise<unknown> = Promise.resolve();
  try {
    await client.query("BEGIN");
    const value = await work({
      query<R>(text: string, params: unknown[] = []) {
        const result = previous.then(() => client.query(text, params));
        previous = result.catch(() => undefined);
        return result.then((r) => ({ rows: r.rows as R[], rowCount: r.rowCount ?? 0 }));
      },
    });
    await client.query("COMMIT");
    return value;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
