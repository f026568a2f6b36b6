// The manifest cut of summary reads: only the outermost object's `manifest` string goes,
// whatever the strings and nested objects around it hold.
import { describe, expect, it } from 'vitest';
import { withoutManifest } from './manifest-bytes.ts';

const big = (n = 70_000): string => 'x'.repeat(n);
const cut = (doc: unknown): unknown => {
  const out = withoutManifest(Buffer.from(JSON.stringify(doc)));
  return out === undefined ? undefined : JSON.parse(out.toString());
};

describe('withoutManifest', () => {
  it('empties the top-level manifest and keeps every other member as it was', () => {
    const doc = { name: 'a', info: { status: 'deployed' }, manifest: `${big()}\n{"k":"v \\" \\\\"}\n`, version: 3, labels: { l: 'v' } };
    expect(cut(doc)).toEqual({ ...doc, manifest: '' });
  });

  it('skips a manifest key nested in config, and the key text inside other strings', () => {
    const doc = {
      description: 'see "manifest":"here"',
      config: { manifest: 'nested', deeper: [{ manifest: 'x' }] },
      manifest: big(),
      after: { manifest: 'kept' },
    };
    expect(cut(doc)).toEqual({ ...doc, manifest: '' });
  });

  it('handles escapes at the end of the manifest string: backslashes before its closing quote', () => {
    const doc = { manifest: `${big()}\\`, version: 1 };
    expect(cut(doc)).toEqual({ manifest: '', version: 1 });
    const quoted = { manifest: `${big()}\\"`, version: 2 };
    expect(cut(quoted)).toEqual({ manifest: '', version: 2 });
  });

  it('leaves small documents, documents without one, and ones that do not scan to the full parse', () => {
    expect(withoutManifest(Buffer.from(JSON.stringify({ manifest: 'small' })))).toBeUndefined();
    expect(withoutManifest(Buffer.from(JSON.stringify({ config: { manifest: big() } })))).toBeUndefined();
    expect(withoutManifest(Buffer.from(JSON.stringify({ manifest: [big()] })))).toBeUndefined();
    expect(withoutManifest(Buffer.from(`{"manifest":"${big()}`))).toBeUndefined();
  });
});
