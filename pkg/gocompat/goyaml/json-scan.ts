/**
 * The one JSON scanner with the state machine and error texts of Go's `encoding/json`, over
 * bytes, optionally recording every value's span: streaming decoders use it off their hot path
 * (the extent of top-level scalars, and why JSON.parse rejected a value, at Go's byte), and
 * raw-json.ts for `json.RawMessage` values. Nesting deeper than MAX_NESTING_DEPTH fails as Go's.
 */
import { goQuote } from '../gotext/index.ts';
import { MAX_NESTING_DEPTH } from './limits.ts';
import { type RawJson, SpanRecorder } from './span-recorder.ts';

export type { RawJson };

/**
 * Outcome of {@link scanJsonValue}. `end`/`index` are indices into the scanned buffer; `tree`
 * is the value with its spans when the scan was asked to record them.
 */
type ScanResult =
  { kind: 'complete'; end: number; tree?: RawJson | undefined } | { kind: 'error'; index: number; message: string } | { kind: 'incomplete' };

// Scanner states (Go's scanner step functions).
const S = {
  BeginValue: 0,
  BeginValueOrEmpty: 1,
  BeginStringOrEmpty: 2,
  BeginString: 3,
  EndValue: 4,
  InString: 5,
  InStringEsc: 6,
  InStringEscU: 7,
  Neg: 8,
  One: 9,
  Zero: 10,
  Dot: 11,
  Dot0: 12,
  E: 13,
  ESign: 14,
  E0: 15,
  Literal: 16,
} as const;
type State = (typeof S)[keyof typeof S];

const OBJ_KEY = 0;
const OBJ_VALUE = 1;
const ARRAY_VALUE = 2;

/** JSON white space: space, tab, LF, CR. */
export function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

/** Go's `quoteChar`: a byte rendered (as a Latin-1 rune) for a syntax error message. */
export function goQuoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  return `'${goQuote(String.fromCharCode(c)).slice(1, -1)}'`;
}

/** The literal a byte starts (`t`, `f`, `n`). */
const LITERALS: ReadonlyMap<number, string> = new Map([
  [0x74, 'true'],
  [0x66, 'false'],
  [0x6e, 'null'],
]);

/** The states that need a digit next: the state a digit leads to, and the error context otherwise. */
const DIGIT_NEEDED = {
  [S.Dot]: { next: S.Dot0, context: 'after decimal point in numeric literal' },
  [S.ESign]: { next: S.E0, context: 'in exponent of numeric literal' },
} as const;

/**
 * The states inside a number's digits (Go's state1, state0, stateDot0, stateE0): whether more
 * digits, a `.` or an exponent may follow. Anything else ends the number.
 */
const NUMBER_TAILS = {
  [S.One]: { digits: true, dot: true, exponent: true },
  [S.Zero]: { digits: false, dot: true, exponent: true },
  [S.Dot0]: { digits: true, dot: false, exponent: true },
  [S.E0]: { digits: true, dot: false, exponent: false },
} as const;

/** The state a number's first digit leads to, or undefined for a byte that is no digit. */
function firstDigitState(c: number): State | undefined {
  if (c === 0x30) return S.Zero;
  return c >= 0x31 && c <= 0x39 ? S.One : undefined;
}

/**
 * Scans one JSON value starting at `start` (leading JSON whitespace allowed) the way Go's
 * stream decoder does. Objects and arrays are complete at their closing byte; scalars need
 * the following byte, or `atEof` (then the value ends at `end`). At EOF an unfinished value
 * is `incomplete`, which Go reports as "unexpected EOF".
 */
export function scanJsonValue(buf: Uint8Array, start: number, end: number, atEof: boolean, spans = false): ScanResult {
  const stack: number[] = [];
  const rec = spans ? new SpanRecorder(buf) : undefined;
  let state: State = S.BeginValue;
  let literal = '';
  let litPos = 0;
  let escU = 0;
  let i = start;
  let reprocess = false;
  const fail = (index: number, context: string): ScanResult => ({
    kind: 'error',
    index,
    message: `invalid character ${goQuoteChar(buf[index] as number)} ${context}`,
  });
  /** Moves to `next` and has it scan the current byte again. */
  const again = (next: State): void => {
    state = next;
    reprocess = true;
  };

  for (; i <= end; i++) {
    // At the end of the buffer, Go feeds a virtual space at EOF to finish scalars.
    const atEnd = i === end;
    if (atEnd && !atEof) return { kind: 'incomplete' };
    const c = atEnd ? 0x20 : (buf[i] as number);
    reprocess = true;
    while (reprocess) {
      reprocess = false;
      switch (state) {
        case S.BeginValueOrEmpty:
          if (isSpace(c)) break;
          again(c === 0x5d ? S.EndValue : S.BeginValue);
          break;
        case S.BeginValue: {
          if (atEnd) return { kind: 'incomplete' };
          if (isSpace(c)) break;
          rec?.begin(i, c);
          if (c === 0x7b || c === 0x5b) {
            // Go's pushParseState: the bracket that opens one level too many is the error.
            if (stack.length >= MAX_NESTING_DEPTH) return fail(i, 'exceeded max depth');
            stack.push(c === 0x7b ? OBJ_KEY : ARRAY_VALUE);
            state = c === 0x7b ? S.BeginStringOrEmpty : S.BeginValueOrEmpty;
            break;
          }
          const lit = LITERALS.get(c);
          const next = c === 0x22 ? S.InString : c === 0x2d ? S.Neg : lit !== undefined ? S.Literal : firstDigitState(c);
          if (next === undefined) return fail(i, 'looking for beginning of value');
          state = next;
          literal = lit ?? '';
          litPos = 1;
          break;
        }
        case S.BeginStringOrEmpty:
          if (isSpace(c)) break;
          if (c === 0x7d) stack[stack.length - 1] = OBJ_VALUE;
          again(c === 0x7d ? S.EndValue : S.BeginString);
          break;
        case S.BeginString:
          if (isSpace(c)) break;
          if (atEnd) return { kind: 'incomplete' };
          if (c === 0x22) {
            rec?.beginKey(i);
            state = S.InString;
            break;
          }
          return fail(i, 'looking for beginning of object key string');
        case S.EndValue: {
          if (stack.length === 0) return { kind: 'complete', end: i, tree: rec?.root };
          if (isSpace(c)) break;
          if (atEnd) return { kind: 'incomplete' };
          const top = stack[stack.length - 1];
          if (top === OBJ_KEY) {
            if (c !== 0x3a) return fail(i, 'after object key');
            stack[stack.length - 1] = OBJ_VALUE;
            state = S.BeginValue;
            break;
          }
          const inObject = top === OBJ_VALUE;
          if (c === 0x2c) {
            if (inObject) stack[stack.length - 1] = OBJ_KEY;
            state = inObject ? S.BeginString : S.BeginValue;
            break;
          }
          if (c !== (inObject ? 0x7d : 0x5d)) return fail(i, inObject ? 'after object key:value pair' : 'after array element');
          stack.pop();
          rec?.endContainer(i + 1);
          if (stack.length === 0) return { kind: 'complete', end: i + 1, tree: rec?.root };
          break;
        }
        case S.InString:
          if (atEnd) return { kind: 'incomplete' };
          if (c === 0x22) {
            rec?.endScalar(i + 1);
            state = S.EndValue;
            break;
          }
          if (c === 0x5c) {
            state = S.InStringEsc;
            break;
          }
          if (c < 0x20) return fail(i, 'in string literal');
          break;
        case S.InStringEsc:
          if (atEnd) return { kind: 'incomplete' };
          if ('bfnrt\\/"'.includes(String.fromCharCode(c))) {
            state = S.InString;
            break;
          }
          if (c === 0x75) {
            state = S.InStringEscU;
            escU = 0;
            break;
          }
          return fail(i, 'in string escape code');
        case S.InStringEscU:
          if (atEnd) return { kind: 'incomplete' };
          if (!isHex(c)) return fail(i, 'in \\u hexadecimal character escape');
          if (++escU === 4) state = S.InString;
          break;
        case S.Neg: {
          if (atEnd) return { kind: 'incomplete' };
          const next = firstDigitState(c);
          if (next === undefined) return fail(i, 'in numeric literal');
          state = next;
          break;
        }
        case S.Dot:
        case S.ESign: {
          if (atEnd) return { kind: 'incomplete' };
          const { next, context }: { next: State; context: string } = DIGIT_NEEDED[state];
          if (!isDigit(c)) return fail(i, context);
          state = next;
          break;
        }
        case S.One:
        case S.Zero:
        case S.Dot0:
        case S.E0: {
          const tail = NUMBER_TAILS[state];
          if (tail.digits && isDigit(c)) break;
          if (tail.dot && c === 0x2e) state = S.Dot;
          else if (tail.exponent && (c === 0x65 || c === 0x45)) state = S.E;
          else {
            // The number ended before this byte, which is scanned again as what follows it.
            rec?.endScalar(i);
            again(S.EndValue);
          }
          break;
        }
        case S.E:
          // An optional sign, then the exponent's digits.
          if (c === 0x2b || c === 0x2d) state = S.ESign;
          else again(S.ESign);
          break;
        case S.Literal: {
          if (atEnd) return { kind: 'incomplete' };
          const want = literal.charCodeAt(litPos);
          if (c !== want) return fail(i, `in literal ${literal} (expecting '${literal[litPos]}')`);
          if (++litPos === literal.length) {
            rec?.endScalar(i + 1);
            state = S.EndValue;
          }
          break;
        }
      }
    }
  }
  return { kind: 'incomplete' };
}

/** Length of the JSON number literal starting at `start` (0 when there is none). */
function numberLiteralEnd(text: string, start: number): number {
  const m = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/.exec(text.slice(start));
  return m === null ? start : start + m[0].length;
}

/**
 * Finds the first number literal of a syntactically valid JSON text whose float64 value is
 * infinite (Go: `json: cannot unmarshal number 1e400 into Go value of type float64`).
 * Returns the literal and the byte offset Go reports (one past the literal's end).
 */
export function findOverflowingNumber(text: string): { literal: string; offset: number } | undefined {
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      inString = true;
      continue;
    }
    if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) {
      const end = numberLiteralEnd(text, i);
      const literal = text.slice(i, end);
      if (!Number.isFinite(Number(literal))) {
        return { literal, offset: Buffer.byteLength(text.slice(0, end)) + 1 };
      }
      i = end - 1;
    }
  }
  return undefined;
}

/**
 * The error `json.Unmarshal` gives for syntactically invalid input (it validates the whole
 * input first): a scanner error, `unexpected end of JSON input`, or trailing data
 * `invalid character 'x' after top-level value`. Undefined when `text` is valid JSON.
 */
export function goUnmarshalSyntaxError(text: string): string | undefined {
  const buf = Buffer.from(text, 'utf8');
  const r = scanJsonValue(buf, 0, buf.length, true);
  if (r.kind === 'incomplete') return 'unexpected end of JSON input';
  if (r.kind === 'error') return r.message;
  for (let i = r.end; i < buf.length; i++) {
    const c = buf[i] as number;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return `invalid character ${goQuoteChar(c)} after top-level value`;
  }
  return undefined;
}
