/**
 * An `enqueue` that was waiting for room in a full queue when the transport's signal was
 * aborted: the jobs not added yet are not in Redis (a resumed producer adds them).
 */
export class EnqueueAbortedError extends Error {
  override name = "EnqueueAbortedError";
  constructor(readonly queue: string) {
    super(`stopped waiting for room in queue ${queue}`);
  }
}
