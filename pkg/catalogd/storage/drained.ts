/** Backpressure for the content writers. */
import type { Writable } from 'node:stream';

/** Resolves on the stream's next `drain`, rejects on its next `error`. */
export function drained(stream: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    const onDrain = (): void => {
      stream.off('error', onError);
      resolve();
    };
    const onError = (err: Error): void => {
      stream.off('drain', onDrain);
      reject(err);
    };
    stream.once('drain', onDrain);
    stream.once('error', onError);
  });
}
