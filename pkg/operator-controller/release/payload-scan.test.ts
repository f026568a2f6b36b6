// The fast path of reading a payload must give what JSON.parse and parseManifest give, or
// step aside (undefined) so that the slow path decides, for whatever a record may hold.
import { describe, expect, it } from 'vitest';
import { parseManifest } from './manifest.ts';
import { scanPayload } from './payload-scan.ts';

/** What the slow path reads: the document without its manifest, and the manifest's objects. */
function slow(text: string): { rest: unknown; objects: unknown } {
  const doc = JSON.parse(text) as { manifest: string };
  const parsed = parseManifest(doc.manifest);
  return { rest: { ...doc, manifest: '' }, objects: parsed.ok ? parsed.objects : parsed.problem };
}

function fast(text: string): { rest: unknown; objects: unknown } | undefined {
  const scan = scanPayload(Buffer.from(text, 'utf8'));
  return scan === undefined ? undefined : { rest: JSON.parse(scan.rest), objects: scan.objects };
}

const cm = (name: string, data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
const lines = (...objects: unknown[]) => objects.map((o) => `${JSON.stringify(o)}\n`).join('');

describe('scanPayload', () => {
  it.each([
    ['our layout', `{"name":"x","config":{"manifest":"not this"},"manifest":${JSON.stringify(lines(cm('a', { k: 'v' }), cm('b', {})))},"version":1}`],
    [
      "Go's escapes (<, >, &, U+2028) and a non-BMP character as a surrogate pair",
      `{"manifest":"{\\"apiVersion\\":\\"v1\\",\\"kind\\":\\"ConfigMap\\",\\"metadata\\":{\\"name\\":\\"\\u003ca\\u0026b\\u003e\\"},\\"data\\":{\\"x\\":\\"\\u2028 \\ud83d\\ude00 é \\\\\\" \\\\\\\\b \\/\\"}}\\r\\t\\n","name":"x"}`,
    ],
    ['blank lines, no final newline', `{"manifest":${JSON.stringify(`\n  \n${JSON.stringify(cm('a', {}))}`)}}`],
    ['an empty manifest', `{"name":"x","manifest":""}`],
    ['whitespace between tokens', `{ "name" : "x" ,\n "manifest" : ${JSON.stringify(lines(cm('a', {})))} }`],
  ])('reads %s as the slow path does', (_what, text) => {
    expect(fast(text)).toEqual(slow(text));
  });

  it.each([
    ['a YAML manifest (older upstream records)', `{"manifest":${JSON.stringify('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n')}}`],
    ['a manifest that is not a string', `{"manifest":["a"]}`],
    ['no manifest', `{"name":"x"}`],
    ['the key twice', `{"manifest":"","manifest":${JSON.stringify(lines(cm('a', {})))}}`],
    ['a line that is not an object with apiVersion, kind and metadata', `{"manifest":${JSON.stringify(lines({ kind: 'ConfigMap' }))}}`],
    ['an escaped lone surrogate', `{"manifest":"{\\"apiVersion\\":\\"v1\\",\\"kind\\":\\"K\\",\\"metadata\\":{\\"name\\":\\"\\ud800\\"}}"}`],
    ['an escaped newline inside a line', `{"manifest":"{\\"apiVersion\\":\\"v1\\",\\u000a\\"kind\\":\\"K\\",\\"metadata\\":{}}"}`],
    ['a raw control character', `{"manifest":"{\\"apiVersion\\":\\"v1\\",\t\\"kind\\":\\"K\\",\\"metadata\\":{}}"}`],
    ['an unknown escape', `{"manifest":"{\\"apiVersion\\":\\"v1\\",\\"kind\\":\\"K\\",\\"metadata\\":{\\"name\\":\\"\\x\\"}}"}`],
    ['an unterminated string', `{"manifest":"{\\"apiVersion`],
  ])('steps aside for %s', (_what, text) => {
    expect(scanPayload(Buffer.from(text, 'utf8'))).toBeUndefined();
  });

  it('cuts the manifest out of the rest, which keeps every other field as written', () => {
    const scan = scanPayload(Buffer.from(`{"a":"\\"manifest\\":","manifest":"${'x'.repeat(3)}","b":[{"manifest":"y"}]}`));
    // "xxx" is not an object: the slow path decides; with objects the rest is the document without them.
    expect(scan).toBeUndefined();
    const text = `{"a":"\\"manifest\\":","manifest":${JSON.stringify(lines(cm('a', {})))},"b":[{"manifest":"y"}]}`;
    expect(scanPayload(Buffer.from(text))?.rest).toBe(`{"a":"\\"manifest\\":","manifest":"","b":[{"manifest":"y"}]}`);
  });
});
