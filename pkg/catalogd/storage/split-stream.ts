/** Splitting the ingest process's layer stream into one stream per blob, by the sizes announced beforehand. */

/**
 * Yields, for each size in `sizes`, a stream of exactly that many bytes of `source`. Each must
 * be read to its end before the next is requested. After the last, `source` must end.
 *
 * @throws Error `catalog layer stream ended <n> bytes early` when `source` is short, and
 *   `catalog layer stream carries more than its <n> layers` when it is long.
 */
export async function* splitBySizes(source: AsyncIterable<Buffer>, sizes: readonly number[]): AsyncGenerator<AsyncIterable<Buffer>> {
  const it = source[Symbol.asyncIterator]();
  let rest: Buffer | undefined;
  try {
    for (const size of sizes) {
      let left = size;
      let done = false;
      yield (async function* () {
        while (left > 0) {
          let chunk = rest;
          rest = undefined;
          if (chunk === undefined) {
            const next = await it.next();
            if (next.done === true) throw new Error(`catalog layer stream ended ${left} bytes early`);
            chunk = next.value;
          }
          if (chunk.length > left) {
            rest = chunk.subarray(left);
            chunk = chunk.subarray(0, left);
          }
          left -= chunk.length;
          yield chunk;
        }
        done = true;
      })();
      if (!done) throw new Error('a layer stream was not read to its end before the next one');
    }
    if (rest !== undefined || (await it.next()).done !== true) throw new Error(`catalog layer stream carries more than its ${sizes.length} layers`);
  } finally {
    await it.return?.();
  }
}
