/**
 * A linear pre-scan of JSON text for its shape, so a request body can be refused before
 * JSON.parse builds it: V8 parses 7 MiB of `[` in seconds and hundreds of megabytes (and 7 MiB of
 * `[],` in most of a second and over 100 MB), blocking the event loop of every server in the
 * process, while this scan reads each byte once and keeps four numbers. It follows JSON only as
 * far as the bounds need (strings and their escapes, brackets outside strings); whether the text
 * is JSON is left to JSON.parse, called once the whole body has passed. Kubernetes' own decoder caps depth at 10000; each listener
 * chooses bounds from what its requests hold (decision 0113).
 */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/** The bounds: the deepest nesting (the outermost array or object is depth 1) and the most arrays and objects in all. */
export interface JsonBounds {
  maxDepth: number;
  /** Unbounded when absent. */
  maxContainers?: number;
}

/** The bound a text passed: its nesting depth, or its number of arrays and objects. */
export type JsonBoundFailure = 'too-deep' | 'too-many-containers';

const positiveInteger = (n: number): boolean => Number.isInteger(n) && n >= 1;

/**
 * Follows UTF-8 JSON fed in chunks of any size (multi-byte characters may be split: their bytes
 * are all >= 0x80, never a quote, backslash or bracket). `push` answers false from the first
 * chunk that passes a bound, and false ever after; `failure` then says which.
 */
export class JsonBoundsScanner {
  readonly #maxDepth: number;
  readonly #maxContainers: number;
  #depth = 0;
  #containers = 0;
  #inString = false;
  #escaped = false;
  #failure: JsonBoundFailure | undefined;

  /** Throws a RangeError when a bound is not a positive integer. */
  constructor(bounds: JsonBounds) {
    const { maxDepth, maxContainers = Number.MAX_SAFE_INTEGER } = bounds;
    if (!positiveInteger(maxDepth) || !positiveInteger(maxContainers))
      throw new RangeError(`JSON bounds must be positive integers, got depth ${maxDepth}, containers ${maxContainers}`);
    this.#maxDepth = maxDepth;
    this.#maxContainers = maxContainers;
  }

  /** The bound the text passed; undefined while it is within both. */
  get failure(): JsonBoundFailure | undefined {
    return this.#failure;
  }

  /** Scans the next bytes; false when the text so far passes a bound. */
  push(chunk: Uint8Array): boolean {
    if (this.#failure !== undefined) return false;
    let depth = this.#depth;
    let containers = this.#containers;
    let inString = this.#inString;
    let escaped = this.#escaped;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i] as number;
      if (inString) {
        if (escaped) escaped = false;
        else if (b === BACKSLASH) escaped = true;
        else if (b === QUOTE) inString = false;
      } else if (b === QUOTE) inString = true;
      else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
        if (++depth > this.#maxDepth) this.#failure = 'too-deep';
        else if (++containers > this.#maxContainers) this.#failure = 'too-many-containers';
        if (this.#failure !== undefined) return false;
      } else if ((b === CLOSE_ARRAY || b === CLOSE_OBJECT) && depth > 0) depth--;
    }
    this.#depth = depth;
    this.#containers = containers;
    this.#inString = inString;
    this.#escaped = escaped;
    return true;
  }
}
