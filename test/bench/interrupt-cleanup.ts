const pending = new Set<() => Promise<void>>();
let listening = false;

/**
 * Makes `cleanup` run if the benchmark is interrupted (Ctrl-C, SIGTERM) before it finishes,
 * since Node exits on those signals without running `finally` blocks: a benchmark killed
 * half-way would leave its Postgres schema, its Redis server and gigabytes of temporary
 * files behind. Returns the cleanup to call in `finally`; it runs once, whichever calls first.
 */
export function cleanupOnInterrupt(cleanup: () => Promise<void> | void): () => Promise<void> {
  let done: Promise<void> | undefined;
  const once = (): Promise<void> => {
    pending.delete(once);
    done ??= Promise.resolve().then(cleanup);
    return done;
  };
  pending.add(once);
  listen();
  return once;
}

function listen(): void {
  if (listening) return;
  listening = true;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, async () => {
      console.error(`\n${signal}: removing what the benchmark made before exiting…`);
      // The newest first: a phase's schema and server before the run's folder.
      for (const cleanup of [...pending].reverse()) {
        await cleanup().catch((error: unknown) => console.error(`cleanup failed: ${error}`));
      }
      process.exit(130);
    });
  }
}
