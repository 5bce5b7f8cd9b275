const BULLMQ_EVICTION_WARNING = /^IMPORTANT! Eviction policy is \S+\. It should be "noeviction"$/;
let installed = false;

/**
 * Drops the warning BullMQ prints on stderr for each queue and worker it connects while
 * Redis may evict keys. Assay checks the eviction policy itself, once, and says what it
 * means and what to do (`checkEvictionPolicy`, `assay status`); BullMQ's line would repeat
 * it once per queue, in other words. Its other warnings pass through. BullMQ's own
 * version check stays on: it decides which Redis commands BullMQ may use.
 */
export function quietBullmqEvictionWarning(): void {
  if (installed) return;
  installed = true;
  const warn = console.warn.bind(console);
  console.warn = (...args: unknown[]) => {
    if (args.length === 1 && typeof args[0] === "string" && BULLMQ_EVICTION_WARNING.test(args[0])) {
      return;
    }
    warn(...args);
  };
}
