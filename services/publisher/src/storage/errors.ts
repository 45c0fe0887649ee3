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

/** No stored object at this path. */
export class ObjectMissingError extends Error {
  override name = "ObjectMissingError";
  constructor(readonly path: string) {
    super(`No object is stored at ${path}.`);
  }
}
