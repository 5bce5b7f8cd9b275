/**
 * Runs tasks one after another in the order they are given, without making the caller
 * wait for them. Once one fails, the later ones do not run and fail with its error.
 */
export class InFileOrder {
  #last: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#last.then(task);
    this.#last = result;
    // A failure is thrown by whoever awaits the result; if nobody ever does, an earlier
    // failure is being thrown instead. Either way it is no unhandled rejection.
    result.catch(() => {});
    return result;
  }
}
