/**
 * Incremental decoder of one FBC file/stream, equivalent to apimachinery's
 * `YAMLOrJSONDecoder(r, 4096)` feeding `declcfg.Meta`: the first non-space rune within 4096 bytes
 * decides (`{`: a JSON value stream, else YAML documents split on `---` lines). When JSON decoding
 * fails after 0 or 1 values, it restarts as YAML after the last good value (white space up to one
 * newline skipped); if that first YAML read fails too, the JSON error (`json: offset N: ...`) is
 * reported. After 2 values JSON errors stand.
 *
 * Only the current document is buffered (boundaries found by a string-aware byte scanner). A
 * document or JSON string over its limit (limits.ts) ends the stream with our error, without a
 * YAML retry; nesting beyond MAX_NESTING_DEPTH fails with Go's text.
 *
 * Errors go to `onError(detail, line)`; a throwing callback aborts (fail-fast, as upstream). One
 * that returns asks for every error (`catalog validate`): a YAML document error skips the
 * document; a well-formed JSON value that cannot become a Meta is reported and skipped (upstream
 * stops) and later values get no YAML retries; other JSON errors end the stream, as upstream.
 */
import { decodeJsonDocument, decodeYamlDocument, type DocumentResult } from './documents.ts';
import { goIsSpace, goTrimSpace } from '../../gocompat/gotext/index.ts';
import {
  type BoundaryScan,
  findValueEnd,
  inFileNumbering,
  NEEDS_MORE,
  scanJsonValue,
  STRING_TOO_LONG,
  TOO_DEEP,
} from '../../gocompat/goyaml/index.ts';
import { DEFAULT_DECODE_LIMITS, type DecodeLimits, limitMessage } from './limits.ts';
import type { JsonValue } from './types.ts';
import { type StreamCallbacks, StreamWindow } from './stream-window.ts';
import { decodeRune, looksLikeJson, RUNE_ERROR } from './utf8.ts';

const SNIFF_BYTES = 4096;

type Mode = 'sniff' | 'json' | 'fallback' | 'yaml' | 'done';

/** The error of a JSON attempt that a YAML retry may still replace, and where a well-formed failed value ends. */
interface FirstError {
  detail: string;
  line: number;
  /** Absolute stream offset and line after the value, for a value that was well-formed. */
  resume: { at: number; line: number } | undefined;
}

/** Push-based FBC stream decoder; see the file comment for semantics. */
export class MetaStreamParser extends StreamWindow {
  private readonly cb: StreamCallbacks;
  private mode: Mode = 'sniff';
  // JSON mode
  private count = 0;
  private yamlDocs = 0; // YAML documents read so far, for error messages
  private scanning = false;
  private readonly scan: BoundaryScan = { pos: 0, depth: 0, inString: false, newlines: 0, stringBytes: 0 };
  private valueStart = 0;
  private valueLine = 1;
  private consumedLine = 1;
  private firstError: FirstError | undefined;
  /** Set once a failed value was skipped: later failures are reported without YAML retries. */
  private resumed = false;
  private readonly limits: Pick<DecodeLimits, 'maxDocumentBytes' | 'maxStringBytes'>;
  // YAML mode
  private docStart = 0;
  private docLine = 1;
  private docHasLines = false;

  /**
   * `scratch`, when given, is used as the initial buffer (a walk hands the same one to each
   * file's parser, so reading a catalog does not allocate per file); see `buffer`. `limits`
   * default to DEFAULT_DECODE_LIMITS.
   */
  constructor(
    callbacks: StreamCallbacks,
    scratch?: Buffer,
    limits: Pick<DecodeLimits, 'maxDocumentBytes' | 'maxStringBytes'> = DEFAULT_DECODE_LIMITS,
  ) {
    super(scratch);
    this.cb = callbacks;
    this.limits = limits;
  }

  /** True once the stream has ended (an error ended it, or `end()`): further input is ignored. */
  get finished(): boolean {
    return this.mode === 'done';
  }

  /** Feeds the next chunk of the stream. */
  push(chunk: Uint8Array): void {
    if (this.mode === 'done' || chunk.length === 0) return;
    this.append(chunk);
    this.process(false);
  }

  /** Signals the end of the stream; decodes whatever is left. */
  end(): void {
    if (this.mode === 'done') return;
    this.process(true);
    this.mode = 'done';
  }

  protected override moved(d: number): void {
    this.valueStart -= d;
    this.docStart -= d;
    this.scan.pos -= d;
  }

  private process(atEof: boolean): void {
    for (;;) {
      const before = this.mode;
      switch (this.mode) {
        case 'sniff':
          if (!atEof && this.len - this.start < SNIFF_BYTES) return;
          this.mode = looksLikeJson(this.buf, this.start, Math.min(this.len, this.start + SNIFF_BYTES)) ? 'json' : 'yaml';
          if (this.mode === 'yaml') this.beginYaml();
          break;
        case 'json':
          this.processJson(atEof);
          break;
        case 'fallback':
          this.processFallback(atEof);
          break;
        case 'yaml':
          this.processYaml(atEof);
          break;
        case 'done':
          return;
      }
      if (this.mode === before) return;
    }
  }

  // ---- JSON value stream ----

  private processJson(atEof: boolean): void {
    const buf = this.buf;
    for (;;) {
      if (!this.scanning) {
        while (this.pos < this.len) {
          const c = buf[this.pos] as number;
          if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
          if (c === 0x0a) this.line++;
          this.pos++;
        }
        if (this.pos >= this.len) {
          if (atEof) this.mode = 'done';
          return;
        }
        this.valueStart = this.pos;
        this.valueLine = this.line;
        const c = buf[this.pos] as number;
        if (c === 0x7b || c === 0x5b) {
          this.scanning = true;
          Object.assign(this.scan, { pos: this.pos, depth: 0, inString: false, newlines: 0, stringBytes: 0 });
        } else {
          // Scalars (and junk) are rare: let the exact scanner find their extent or error.
          const r = scanJsonValue(buf, this.valueStart, this.len, atEof);
          if (r.kind === 'incomplete') {
            if (this.len - this.valueStart > this.limits.maxDocumentBytes) return this.limitFailed('document', this.valueLine);
            if (atEof) this.jsonFailed('unexpected EOF');
            return;
          }
          if (r.kind === 'error') return this.jsonFailed(r.message, r.index);
          this.pos = r.end;
          this.finishJsonValue(r.end);
          if (this.mode !== 'json') return;
          continue;
        }
      }
      const end = findValueEnd(buf, this.valueStart, this.len, this.scan, this.limits.maxStringBytes);
      if (end === STRING_TOO_LONG) return this.limitFailed('string', this.valueLine);
      // The exact scanner stops at the bracket one level too deep, with Go's error.
      if (end === TOO_DEEP) return this.explainJson(this.scan.pos);
      const size = (end === NEEDS_MORE ? this.len : end) - this.valueStart;
      if (size > this.limits.maxDocumentBytes) return this.limitFailed('document', this.valueLine);
      if (end === NEEDS_MORE) {
        if (atEof) this.explainJson(this.len);
        return;
      }
      this.scanning = false;
      this.pos = end;
      this.line += this.scan.newlines;
      this.finishJsonValue(end);
      if (this.mode !== 'json') return;
    }
  }

  private finishJsonValue(end: number): void {
    const text = this.buf.toString('utf8', this.valueStart, end);
    let value: JsonValue;
    try {
      value = JSON.parse(text) as JsonValue;
    } catch {
      return this.explainJson(end);
    }
    // The raw bytes are only read synchronously, to render the rare pretty type error.
    const valueStart = this.valueStart;
    const result = decodeJsonDocument(value, () => this.buf.subarray(valueStart, end));
    if (!result.ok) return this.jsonFailed(result.detail, undefined, end);
    this.count++;
    this.start = end;
    this.consumedLine = this.line;
    this.cb.onDocument({ ...result.decoded, line: this.valueLine });
  }

  // JSON.parse rejected the value (or the stream ended inside it): find Go's error.
  private explainJson(limit: number): void {
    const r = scanJsonValue(this.buf, this.valueStart, Math.max(limit, this.len), true);
    if (r.kind === 'error') return this.jsonFailed(r.message, r.index);
    this.jsonFailed('unexpected EOF');
  }

  // `valueEnd`: the failed value was well-formed and ends there (a type error).
  private jsonFailed(message: string, syntaxIndex?: number, valueEnd?: number): void {
    this.scanning = false;
    if (this.count > 1 || this.resumed) {
      this.mode = 'done';
      this.cb.onError(message, this.valueLine);
      // The callback returned: skip the value and go on.
      if (valueEnd !== undefined) this.resumeJson(this.absStart + valueEnd, this.line);
      return;
    }
    const detail = syntaxIndex === undefined ? message : `json: offset ${this.absStart + syntaxIndex + 1}: ${message}`;
    this.firstError = {
      detail,
      line: this.valueLine,
      resume: valueEnd === undefined ? undefined : { at: this.absStart + valueEnd, line: this.line },
    };
    // Rewind to just after the last decoded value and retry the rest as YAML.
    this.pos = this.start;
    this.line = this.consumedLine;
    this.mode = 'fallback';
  }

  // Skips white space up to and including one newline before switching to YAML. Like
  // apimachinery, it reads 4 bytes at a time and gives up (keeping the JSON error) when fewer
  // remain or a byte sequence is not valid UTF-8.
  private processFallback(atEof: boolean): void {
    for (;;) {
      if (this.len - this.pos < 4) {
        if (!atEof) return;
        return this.failFirst();
      }
      const [cp, size] = decodeRune(this.buf, this.pos, this.len);
      if (cp === RUNE_ERROR) return this.failFirst();
      if (!goIsSpace(cp)) break;
      this.pos += size;
      if (cp === 0x0a) {
        this.line++;
        break;
      }
    }
    this.start = this.pos;
    this.mode = 'yaml';
    this.beginYaml();
  }

  private failFirst(): void {
    const first = this.firstError;
    this.firstError = undefined;
    this.mode = 'done';
    if (first === undefined) return;
    this.cb.onError(first.detail, first.line);
    // The callback returned: go on after the failed value when it was well-formed.
    if (first.resume !== undefined) this.resumeJson(first.resume.at, first.resume.line);
  }

  // Continues the JSON stream at absolute offset `at` (still buffered: nothing before the
  // failed value's end was released).
  private resumeJson(at: number, line: number): void {
    this.resumed = true;
    this.mode = 'json';
    this.scanning = false;
    this.pos = at - this.absStart;
    this.start = this.pos;
    this.line = line;
    this.consumedLine = line;
  }

  // A size limit was crossed: ours, not upstream's, so no YAML retry. In a YAML retry of a
  // failed JSON value, the JSON error is what upstream would report and stands instead.
  private limitFailed(what: 'document' | 'string', line: number): void {
    if (this.firstError !== undefined) return this.failFirst();
    this.scanning = false;
    this.mode = 'done';
    this.cb.onError(limitMessage(what, what === 'document' ? this.limits.maxDocumentBytes : this.limits.maxStringBytes), line);
  }

  // ---- YAML documents ----

  private beginYaml(): void {
    this.pos = this.start;
    this.docStart = this.start;
    this.docHasLines = false;
  }

  private processYaml(atEof: boolean): void {
    const buf = this.buf;
    while (this.mode === 'yaml') {
      let nl = buf.indexOf(0x0a, this.pos);
      if (nl >= this.len) nl = -1;
      // The document so far, or the line that may start one.
      const docStart = this.docHasLines ? this.docStart : this.pos;
      if ((nl < 0 ? this.len : nl) - docStart > this.limits.maxDocumentBytes)
        return this.limitFailed('document', this.docHasLines ? this.docLine : this.line);
      if (nl < 0 && !atEof) return;
      if (nl < 0 && this.pos >= this.len) {
        // End of stream: the pending document, if any, ends here.
        if (this.docHasLines) this.emitYaml(this.len, true);
        if (this.mode === 'yaml') this.mode = 'done';
        return;
      }
      const lineEnd = nl < 0 ? this.len : nl;
      const next = nl < 0 ? this.len : nl + 1;
      if (lineEnd - this.pos >= 3 && buf[this.pos] === 0x2d && buf[this.pos + 1] === 0x2d && buf[this.pos + 2] === 0x2d) {
        this.separator(lineEnd, next);
        // An error may have ended the stream, or resumed it as JSON elsewhere.
        if (this.mode !== 'yaml') return;
      } else if (!this.docHasLines) {
        this.docHasLines = true;
        this.docStart = this.pos;
        this.docLine = this.line;
      }
      if (nl >= 0) this.line++;
      this.pos = next;
      if (!this.docHasLines) this.start = this.pos;
    }
  }

  private separator(lineEnd: number, next: number): void {
    // bufio.ReadLine drops "\r\n" as well as "\n".
    const contentEnd = lineEnd > this.pos && this.buf[lineEnd - 1] === 0x0d && lineEnd < this.len ? lineEnd - 1 : lineEnd;
    const rest = goTrimSpace(this.buf.toString('utf8', this.pos + 3, contentEnd));
    const sepLine = this.line;
    // Upstream returns this error before (and instead of) the document read so far.
    if (rest !== '' && rest[0] !== '#') this.yamlError(`invalid Yaml document separator: ${rest}`, sepLine);
    if (this.mode !== 'yaml') return;
    if (this.docHasLines) this.emitYaml(this.pos, false);
    this.docHasLines = false;
    this.docStart = next;
  }

  private emitYaml(end: number, atEof: boolean): void {
    let text = this.buf.toString('utf8', this.docStart, end);
    if (text.includes('\r')) text = text.replaceAll('\r\n', '\n');
    // apimachinery's line reader terminates the last line with "\n" even at EOF.
    if (atEof && !text.endsWith('\n')) text += '\n';
    const line = this.docLine;
    this.yamlDocs++;
    const result: DocumentResult = decodeYamlDocument(text, this.limits.maxStringBytes);
    if (!result.ok) return this.yamlError(result.detail, line, { index: this.yamlDocs, firstLine: line });
    this.firstError = undefined;
    this.count++;
    this.cb.onDocument({ ...result.decoded, line });
  }

  private yamlError(detail: string, line: number, at?: { index: number; firstLine: number }): void {
    // The first YAML read after a failed JSON attempt decides: if it fails, the JSON error wins.
    if (this.firstError !== undefined) return this.failFirst();
    const located = at === undefined ? undefined : inFileNumbering(detail, at);
    if (located?.line === undefined) return this.cb.onError(detail, line);
    this.cb.onError(detail, line, { text: located.text, line: located.line });
  }
}
