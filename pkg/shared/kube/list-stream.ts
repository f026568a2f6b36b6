/**
 * Streaming decoding of a list response: each item of the top-level `items` array is parsed and
 * handed out as soon as its bytes are complete, so a page of large objects (ten ~1 MiB
 * ConfigMaps parse into ~60 MB) is never held whole. The envelope is kept as text and parsed at
 * the end. The scanner follows JSON only as far as splitting needs; `JSON.parse` validates.
 */
import type { Readable } from 'node:stream';
import type { KubeObject, ObjectList } from '../unstructured/index.ts';
import { errorMessage } from '../errors/index.ts';

/** A list response without its items. */
export type ListEnvelope = Omit<ObjectList, 'items'>;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const ITEMS_KEY = Buffer.from('items');

/** Splits a list body's bytes into its items (handed out parsed) and its envelope. */
export class ListItemSplitter<T extends KubeObject = KubeObject> {
  readonly #onItem: (item: T) => void;
  /** Nesting depth before the next byte: 0 outside the top-level value, 1 inside it, ... */
  #depth = 0;
  #inString = false;
  /** The previous chunk ended inside a string on an unpaired backslash. */
  #escaped = false;
  /** At depth 1: the next string is a key (not a value). */
  #expectKey = true;
  /** The bytes of the depth-1 key being read, and the last key read. */
  #keyParts: Buffer[] | undefined;
  #lastKey: Buffer | undefined;
  /** Inside the top-level `items` array (depth 2 and deeper belongs to it). */
  #inItems = false;
  /** The pieces of the item being read, undefined between items. */
  #item: Buffer[] | undefined;
  /** The pieces outside `items`, with the array's brackets and nothing between them. */
  readonly #envelope: Buffer[] = [];
  /** The top-level object closed. */
  #ended = false;

  constructor(onItem: (item: T) => void) {
    this.#onItem = onItem;
  }

  /** Scans `chunk`; hands out each item it completes. Throws on malformed input. */
  write(chunk: Buffer): void {
    // `keep` is where the current piece (of the envelope or of an item) began in this chunk.
    let keep = 0;
    let i = 0;
    // Where the text of a string (a key being read) continues in this chunk.
    let textFrom = 0;
    if (this.#inString && this.#escaped) {
      // The first byte is escaped by the previous chunk's last backslash.
      this.#escaped = false;
      i = 1;
    }
    const n = chunk.length;
    while (i < n) {
      if (this.#inString) {
        const end = stringEnd(chunk, i);
        if (end < 0) {
          this.#escaped = oddBackslashesBefore(chunk, n, i);
          this.#keyParts?.push(chunk.subarray(textFrom, n));
          i = n;
          break;
        }
        if (this.#keyParts !== undefined) {
          this.#keyParts.push(chunk.subarray(textFrom, end));
          this.#lastKey = Buffer.concat(this.#keyParts);
          this.#keyParts = undefined;
        }
        this.#inString = false;
        i = end + 1;
        continue;
      }
      const c = chunk[i] as number;
      if (this.#depth === 0 && !isSpace(c) && (this.#ended || c !== 0x7b)) {
        throw new Error(this.#ended ? 'the server sent more after the list ended' : 'the list response is not a JSON object');
      }
      switch (c) {
        case QUOTE:
          this.#inString = true;
          textFrom = i + 1;
          if (this.#depth === 1 && this.#expectKey) this.#keyParts = [];
          break;
        case 0x7b: // {
        case 0x5b: // [
          if (this.#depth === 1 && c === 0x5b && !this.#expectKey && this.#lastKey?.equals(ITEMS_KEY) === true) {
            this.#envelope.push(chunk.subarray(keep, i + 1));
            keep = i + 1;
            this.#inItems = true;
          } else if (this.#inItems && this.#depth === 2) {
            if (c !== 0x7b) throw new Error('a list item is not a JSON object');
            this.#item = [];
            keep = i;
          }
          this.#depth++;
          break;
        case 0x7d: // }
        case 0x5d: // ]
          if (this.#depth === 0) throw new Error('the list response has unbalanced brackets');
          this.#depth--;
          if (this.#inItems && this.#depth === 2 && this.#item !== undefined) {
            this.#item.push(chunk.subarray(keep, i + 1));
            this.#emit();
            keep = i + 1;
          } else if (this.#inItems && this.#depth === 1) {
            keep = i; // the closing bracket goes to the envelope
            this.#inItems = false;
          } else if (this.#depth === 0) {
            this.#ended = true;
          }
          break;
        case 0x3a: // :
          if (this.#depth === 1) this.#expectKey = false;
          break;
        case 0x2c: // ,
          if (this.#depth === 1) this.#expectKey = true;
          else if (this.#inItems && this.#depth === 2) keep = i + 1; // commas between items are dropped
          break;
        default:
          // Whitespace, numbers, true, false, null: nothing to track.
          if (this.#inItems && this.#depth === 2 && !isSpace(c)) throw new Error('a list item is not a JSON object');
      }
      i++;
    }
    if (this.#item !== undefined) {
      if (keep < n) this.#item.push(chunk.subarray(keep, n));
    } else if (!this.#inItems && keep < n) {
      this.#envelope.push(chunk.subarray(keep, n));
    }
  }

  /** The body ended: returns the envelope. Throws when the list was incomplete or malformed. */
  end(): ListEnvelope {
    if (!this.#ended) throw new Error('the list response ended early');
    let envelope: unknown;
    try {
      envelope = JSON.parse(Buffer.concat(this.#envelope).toString('utf8'));
    } catch (err) {
      throw new Error(`the server sent malformed JSON: ${errorMessage(err)}`, { cause: err });
    }
    const { items: _items, ...rest } = envelope as ObjectList;
    return rest;
  }

  #emit(): void {
    const pieces = this.#item ?? [];
    this.#item = undefined;
    const text = pieces.length === 1 ? (pieces[0] as Buffer).toString('utf8') : Buffer.concat(pieces).toString('utf8');
    let item: T;
    try {
      item = JSON.parse(text) as T;
    } catch (err) {
      throw new Error(`the server sent malformed JSON: ${errorMessage(err)}`, { cause: err });
    }
    this.#onItem(item);
  }
}

/** Index of the quote that ends the string whose text begins at `from`, or -1 past `chunk`. */
function stringEnd(chunk: Buffer, from: number): number {
  for (let q = chunk.indexOf(QUOTE, from); q >= 0; q = chunk.indexOf(QUOTE, q + 1)) {
    if (!oddBackslashesBefore(chunk, q, from)) return q;
  }
  return -1;
}

/** True when the run of backslashes ending right before `at` (not reaching before `from`) is odd. */
function oddBackslashesBefore(chunk: Buffer, at: number, from: number): boolean {
  let k = at - 1;
  while (k >= from && chunk[k] === BACKSLASH) k--;
  return (at - 1 - k) % 2 === 1;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * Reads a list `body`, handing each item to `onItem`; resolves with the envelope. Rejects on
 * malformed input, a broken body, `timeoutMs` (0: none), abort, or what `onItem` throws.
 */
export async function decodeListStream<T extends KubeObject = KubeObject>(
  body: Readable,
  onItem: (item: T) => void,
  options: { timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<ListEnvelope> {
  const splitter = new ListItemSplitter<T>(onItem);
  const timer =
    options.timeoutMs > 0
      ? setTimeout(() => body.destroy(new Error(`reading the response timed out after ${options.timeoutMs} ms`)), options.timeoutMs)
      : undefined;
  try {
    let failure: unknown;
    try {
      for await (const chunk of body) {
        try {
          splitter.write(chunk as Buffer);
        } catch (err) {
          failure = err;
          break;
        }
      }
    } catch (err) {
      if (options.signal?.aborted === true) throw options.signal.reason;
      throw new Error(`reading the response: ${errorMessage(err)}`, { cause: err });
    }
    if (failure !== undefined) throw failure;
    if (options.signal?.aborted === true) throw options.signal.reason;
    return splitter.end();
  } finally {
    clearTimeout(timer);
    body.destroy();
  }
}
