/**
 * Records the value tree of a JSON text while {@link scanJsonValue} scans it: the scanner
 * reports value boundaries, this builds the nodes with their `[start, end)` byte spans.
 */

/** A scanned JSON value with its `[start, end)` span in the source. */
export type RawJson =
  | { kind: 'object'; start: number; end: number; members: { key: string; value: RawJson }[] }
  | { kind: 'array'; start: number; end: number; items: RawJson[] }
  | { kind: 'string' | 'number' | 'true' | 'false' | 'null'; start: number; end: number };

// A container being scanned; `key` is its own key in the enclosing object.
type Building =
  | { kind: 'object'; start: number; key: string; members: { key: string; value: RawJson }[] }
  | { kind: 'array'; start: number; key: string; items: RawJson[] };

/** Builds the RawJson tree from the scanner's value boundaries (see json-scan.ts). */
export class SpanRecorder {
  root: RawJson | undefined;
  private readonly buf: Uint8Array;
  private readonly open: Building[] = [];
  private scalar: { kind: 'string' | 'number' | 'true' | 'false' | 'null'; start: number } | undefined;
  private keyStart = -1;
  private key = '';

  constructor(buf: Uint8Array) {
    this.buf = buf;
  }

  begin(i: number, c: number): void {
    if (c === 0x7b) this.open.push({ kind: 'object', start: i, key: this.key, members: [] });
    else if (c === 0x5b) this.open.push({ kind: 'array', start: i, key: this.key, items: [] });
    else this.scalar = { kind: c === 0x22 ? 'string' : c === 0x74 ? 'true' : c === 0x66 ? 'false' : c === 0x6e ? 'null' : 'number', start: i };
  }

  beginKey(i: number): void {
    this.keyStart = i;
  }

  endScalar(end: number): void {
    if (this.keyStart >= 0) {
      this.key = JSON.parse(Buffer.from(this.buf.subarray(this.keyStart, end)).toString('utf8')) as string;
      this.keyStart = -1;
      return;
    }
    const s = this.scalar;
    if (s === undefined) return;
    this.scalar = undefined;
    this.attach({ kind: s.kind, start: s.start, end }, this.key);
  }

  endContainer(end: number): void {
    const b = this.open.pop();
    if (b === undefined) return;
    this.attach(
      b.kind === 'object' ? { kind: 'object', start: b.start, end, members: b.members } : { kind: 'array', start: b.start, end, items: b.items },
      b.key,
    );
  }

  private attach(node: RawJson, key: string): void {
    const parent = this.open.at(-1);
    if (parent === undefined) this.root = node;
    else if (parent.kind === 'array') parent.items.push(node);
    else parent.members.push({ key, value: node });
  }
}
