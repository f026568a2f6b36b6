/**
 * Property tests of the fast path of reading a release payload (payload-scan.ts) against the
 * slow path it stands in for: JSON.parse of the whole text, then parseManifest of its manifest
 * (and, for a whole record, fromHelmRelease). For any bytes the fast path either steps aside
 * or gives exactly what the slow path gives; for what we write (one object per line, without
 * escaped lone surrogates) it must not step aside.
 *
 * Documents are written by a JSON writer of our own with the escaping choices other writers
 * make (Go's encoder escapes <, >, & and U+2028/9; others escape every non-ASCII unit, or "/",
 * or write hex in capitals), so the bytes are not only what JSON.stringify writes.
 */
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kube/index.ts';
import { decodeRelease, releaseJson } from './codec.ts';
import { fromHelmRelease } from './helm-format.ts';
import { fromLegacyRelease, isLegacyRelease } from './legacy.ts';
import { parseManifest } from './manifest.ts';
import { scanPayload } from './payload-scan.ts';
import { ReleaseStatus, type Release } from './types.ts';

/** How a writer escapes strings (and keys). */
interface Escaping {
  /** Every non-ASCII UTF-16 unit as \uXXXX (a pair as two escapes). */
  nonAscii: boolean;
  /** <, > and & as \u003c, \u003e, \u0026, and U+2028/9 escaped (Go's encoder). */
  html: boolean;
  /** "/" as "\/". */
  slash: boolean;
  /** \b \f \n \r \t as \u00XX instead. */
  longControls: boolean;
  upperHex: boolean;
  /** The first letter of every object key as \u00XX. */
  keys: boolean;
}

const SHORT: Record<string, string> = { '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '"': '\\"', '\\': '\\\\' };

function jsonString(s: string, e: Escaping): string {
  const hex = (code: number) => {
    const h = code.toString(16).padStart(4, '0');
    return `\\u${e.upperHex ? h.toUpperCase() : h}`;
  };
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s.charAt(i);
    const code = s.charCodeAt(i);
    if (ch === '"' || ch === '\\') out += SHORT[ch];
    else if (code < 0x20) out += !e.longControls && SHORT[ch] !== undefined ? SHORT[ch] : hex(code);
    else if (ch === '/' && e.slash) out += '\\/';
    else if (e.html && (ch === '<' || ch === '>' || ch === '&' || code === 0x2028 || code === 0x2029)) out += hex(code);
    else if (code >= 0x80 && e.nonAscii) out += hex(code);
    else out += ch; // a lone surrogate written raw becomes U+FFFD in UTF-8, for both paths alike
  }
  return `${out}"`;
}

function jsonKey(key: string, e: Escaping): string {
  const first = key.charCodeAt(0);
  if (!e.keys || !/^[a-z]/i.test(key)) return jsonString(key, e);
  return `"\\u${first.toString(16).padStart(4, '0')}${jsonString(key.slice(1), e).slice(1)}`;
}

/** `value` (plain JSON data) written with `e`; `space` between tokens when given. */
function writeJson(value: unknown, e: Escaping, space = ''): string {
  if (typeof value === 'string') return jsonString(value, e);
  if (Array.isArray(value)) return `[${value.map((v) => writeJson(v, e, space)).join(`,${space}`)}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${space}${Object.entries(value)
      .map(([k, v]) => `${jsonKey(k, e)}${space}:${space}${writeJson(v, e, space)}`)
      .join(`,${space}`)}${space}}`;
  }
  return JSON.stringify(value);
}

// Strings rich in what escaping cares about: quotes, backslashes, controls, "/", HTML
// characters, line separators, non-ASCII, pairs, lone halves, and escapes' look-alikes.
const unit = fc.oneof(
  fc.constantFrom(
    '"',
    '\\',
    '\n',
    '\r',
    '\t',
    '\b',
    '\f',
    '\u0000',
    '\u001f',
    '/',
    '<',
    '>',
    '&',
    '\u2028',
    '\u2029',
    'é',
    '😀',
    '\ud800',
    '\udfff',
    'n',
    'u',
    '{',
    '}',
  ),
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
  fc.string({ unit: 'grapheme-ascii', maxLength: 3 }),
);
const text = fc.string({ unit, maxLength: 12 });

/** JSON data with such strings, keys included. */
const { value: jsonData } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(text, tie('value'), { maxKeys: 4 }),
  ),
}));

const kubeObject: fc.Arbitrary<KubeObject> = fc
  .record({
    apiVersion: text,
    kind: text,
    metadata: fc.dictionary(text, jsonData, { maxKeys: 3 }),
    extra: fc.dictionary(text, jsonData, { maxKeys: 3 }),
  })
  .map(({ apiVersion, kind, metadata, extra }) => ({ ...extra, apiVersion, kind, metadata }) as KubeObject);

const escaping: fc.Arbitrary<Escaping> = fc.record({
  nonAscii: fc.boolean(),
  html: fc.boolean(),
  slash: fc.boolean(),
  longControls: fc.boolean(),
  upperHex: fc.boolean(),
  keys: fc.boolean(),
});

/** Lines of a manifest: objects' JSON, and now and then what the JSON-lines path refuses. */
const manifestLine = fc.oneof(
  { weight: 6, arbitrary: kubeObject.map((o) => JSON.stringify(o)) },
  { weight: 1, arbitrary: fc.constantFrom('', '  ', '\t', '\r', '\u00a0', '\ufeff') },
  {
    weight: 1,
    arbitrary: fc.constantFrom('apiVersion: v1', 'kind: ConfigMap', '---', '# comment', 'metadata: {name: a}', '[1]', '{}', '{"kind":"K"}', '{"a":'),
  },
  { weight: 1, arbitrary: jsonData.map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 1, arbitrary: text },
);
const manifest = fc.tuple(fc.array(manifestLine, { maxLength: 6 }), fc.boolean()).map(([ls, last]) => ls.join('\n') + (last ? '\n' : ''));

function hasLoneSurrogate(s: string): boolean {
  return /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
}

/** The slow path: the document without its manifest, and the manifest's objects or problem. */
function slow(bytes: Buffer): { rest: unknown; objects: unknown } | 'not JSON' | 'manifest not a string' {
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch {
    return 'not JSON';
  }
  const m = (doc as { manifest?: unknown } | null)?.manifest;
  if (typeof m !== 'string') return 'manifest not a string';
  const parsed = parseManifest(m);
  return { rest: { ...(doc as object), manifest: '' }, objects: parsed.ok ? parsed.objects : parsed.problem };
}

/** The fast path, as codec.ts uses it: undefined when it steps aside. */
function fast(bytes: Buffer): { rest: unknown; objects: unknown } | undefined {
  const scan = scanPayload(bytes);
  if (scan === undefined) return undefined;
  let rest: unknown;
  try {
    rest = JSON.parse(scan.rest);
  } catch {
    return undefined;
  }
  return (rest as { manifest?: unknown } | null)?.manifest === '' ? { rest, objects: scan.objects } : undefined;
}

/** A document with `manifest` among other fields (some named like it, inside). */
const document = fc
  .record({
    before: fc.dictionary(text, jsonData, { maxKeys: 3 }),
    after: fc.dictionary(text, jsonData, { maxKeys: 3 }),
    manifest,
    escaping,
    spaced: fc.boolean(),
    // The key once more at the end, as written or with an escape (JSON.parse keeps the last).
    again: fc.constantFrom('', '"manifest"', '"manif\\u0065st"', '"\\u006danifest"'),
    againValue: fc.oneof(fc.constant(''), manifest),
  })
  .map(({ before, after, manifest: m, escaping: e, spaced, again, againValue }) => {
    const doc = { ...before, config: { manifest: 'not this' }, manifest: m, ...after };
    let written = writeJson(doc, e, spaced ? ' \n\t' : '');
    if (again !== '') written = `${written.slice(0, -1)},${again}:${jsonString(againValue, e)}}`;
    return { manifest: m, escaping: e, bytes: Buffer.from(written, 'utf8') };
  });

describe('scanPayload (properties)', () => {
  it('gives what JSON.parse and parseManifest give, or steps aside', () => {
    fc.assert(
      fc.property(document, ({ bytes }) => {
        const f = fast(bytes);
        if (f !== undefined) expect(f).toEqual(slow(bytes));
      }),
      { numRuns: 1000 },
    );
  });

  it('does not step aside for a manifest of objects, one per line, written with the short escapes', () => {
    const ours = fc.record({ objects: fc.array(kubeObject, { maxLength: 5 }), escaping, spaced: fc.boolean() });
    fc.assert(
      fc.property(ours, ({ objects, escaping: e, spaced }) => {
        const m = objects.map((o) => `${JSON.stringify(o)}\n`).join('');
        const bytes = Buffer.from(
          writeJson({ name: 'x', manifest: m, version: 1 }, { ...e, longControls: false, keys: false }, spaced ? ' ' : ''),
          'utf8',
        );
        const f = fast(bytes);
        // Escaped lone surrogates (which have no UTF-8) are left to the slow path.
        if (!hasLoneSurrogate(m) || !e.nonAscii) expect(f).toBeDefined();
        if (f !== undefined) expect(f).toEqual(slow(bytes));
      }),
      { numRuns: 300 },
    );
  });

  it('after any one byte is changed, inserted or removed, still gives what the slow path gives, or steps aside', () => {
    const mutated = fc.record({
      doc: document,
      at: fc.nat(),
      byte: fc.integer({ min: 0, max: 255 }),
      how: fc.constantFrom('set', 'insert', 'delete'),
    });
    fc.assert(
      fc.property(mutated, ({ doc: { bytes }, at, byte, how }) => {
        const i = at % (bytes.length + 1);
        const b =
          how === 'set'
            ? Buffer.concat([bytes.subarray(0, i), Buffer.from([byte]), bytes.subarray(i + 1)])
            : how === 'insert'
              ? Buffer.concat([bytes.subarray(0, i), Buffer.from([byte]), bytes.subarray(i)])
              : Buffer.concat([bytes.subarray(0, i), bytes.subarray(i + 1)]);
        const f = fast(b);
        if (f !== undefined) expect(f).toEqual(slow(b));
      }),
      { numRuns: 1500 },
    );
  });
});

/** What decodeRelease gave before the fast path: the whole text parsed, then the release read from it. */
function slowDecode(payload: Buffer, uid: string): Release | string {
  let doc: unknown;
  try {
    doc = JSON.parse(payload.toString('utf8'));
  } catch {
    return 'not JSON';
  }
  const decoded = isLegacyRelease(doc) ? fromLegacyRelease(doc) : fromHelmRelease(doc, uid);
  return decoded.ok ? decoded.release : `release record test is corrupt: ${decoded.problem}`;
}

async function decoded(payload: Buffer, uid: string): Promise<Release | string> {
  try {
    return await decodeRelease(gzipSync(payload), 'test', uid);
  } catch (e) {
    const message = (e as Error).message;
    return message.includes('the payload is not JSON') ? 'not JSON' : message;
  }
}

describe('decodeRelease (properties)', () => {
  const release = fc
    .record({ objects: fc.array(kubeObject, { maxLength: 4 }), notes: text, escaping })
    .map(({ objects, notes, escaping: e }): { release: Release; escaping: Escaping } => ({
      escaping: e,
      release: {
        extension: 'ext',
        extensionUID: 'uid',
        revision: 3,
        status: ReleaseStatus.Deployed,
        bundle: { package: 'p', name: 'p.v1', version: '1.0.0', image: 'registry.example/p@sha256:abc' },
        manifest: objects,
        properties: [],
        config: { note: notes },
        description: 'Install complete',
      },
    }));

  it('reads any release written with any escaping as the whole-text parse does', async () => {
    await fc.assert(
      fc.asyncProperty(release, async ({ release: r, escaping: e }) => {
        const ours = Buffer.from(releaseJson(r), 'utf8');
        const theirs = Buffer.from(`${writeJson(JSON.parse(releaseJson(r)), e)}\n`, 'utf8');
        for (const bytes of [ours, theirs]) expect(await decoded(bytes, 'uid')).toEqual(slowDecode(bytes, 'uid'));
      }),
      { numRuns: 200 },
    );
  });

  it('reads a record with a YAML manifest (older upstream records) as the whole-text parse does', async () => {
    const word = fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/);
    const yaml = fc.tuple(word, word).map(([kind, name]) => `apiVersion: v1\nkind: "${kind}"\nmetadata: {name: "${name}"}\n`);
    await fc.assert(
      fc.asyncProperty(release, fc.array(yaml, { minLength: 1, maxLength: 3 }), async ({ release: r }, docs) => {
        const doc = { ...(JSON.parse(releaseJson(r)) as object), manifest: docs.join('---\n') };
        const bytes = Buffer.from(`${JSON.stringify(doc)}\n`, 'utf8');
        expect(scanPayload(bytes)).toBeUndefined();
        const back = await decoded(bytes, 'uid');
        expect(back).toEqual(slowDecode(bytes, 'uid'));
        expect(typeof back === 'string' ? back : back.manifest).toHaveLength(docs.length);
      }),
      { numRuns: 50 },
    );
  });
});
