/** A body that ended before (or went past) the size it announced: nothing was stored. */
export class IncompleteBodyError extends Error {
  override name = "IncompleteBodyError";
  constructor(
    readonly receivedBytes: number,
    readonly expectedBytes: number,
  ) {
    super(`The body had ${receivedBytes} bytes where ${expectedBytes} were announced.`);
  }
}

/**
 * A range read answered with something other than the range (a store that ignores `Range` answers
 * the whole object): its bytes would land at the wrong offset of an upload, so none are used.
 */
export class RangeNotServedError extends Error {
  override name = "RangeNotServedError";
  constructor(
    readonly path: string,
    readonly asked: string,
    readonly answered: string,
  ) {
    super(`Storage answered a read of ${path} for ${asked} with ${answered}.`);
  }
}

/** No stored object at this path. */
export class ObjectMissingError extends Error {
  override name = "ObjectMissingError";
  constructor(readonly path: string) {
    super(`No object is stored at ${path}.`);
  }
}
