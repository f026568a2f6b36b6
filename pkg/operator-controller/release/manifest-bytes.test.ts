// A large record's manifest read from its decompressed bytes into lines (decision 0098 item 17):
// whatever the record holds, the release decoded with a sink is the release decoded whole (the
// same fields, objects, identities and manifest text back byte for byte); only a manifest of
// JSON-object lines as we and upstream write them goes to the sink, and anything else, a failing
// sink included, is decoded whole.
import { gzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import type { KubeObject } from '../../shared/kube/index.ts';
import { decodeRelease, encodeRelease, releaseJson } from './codec.ts';
import { manifestLine, type LineSink, Manifest } from './manifest.ts';
import type { Release } from './types.ts';

const WHERE = 'Secret "olmv1-system/rec"';
const objects: KubeObject[] = [
  // Quotes, a backslash before an "n", a newline in a value, markup Go's encoder escapes, non-ASCII.
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a', namespace: 'ns' },
    data: { q: '"x"', bs: 'C:\\new\\\\n', nl: 'a\nb\\n', html: '<&>', u: 'ü €' },
  },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' }, rules: [] },
  { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'ns' }, stringData: { x: '\\' } },
];
const release: Release = {
  extension: 'ext',
  extensionUID: 'u',
  revision: 3,
  status: 'deployed',
  bundle: { package: 'p', name: 'p.v1.0.0', version: '1.0.0', image: 'registry.example/p@sha256:' + 'a'.repeat(64) },
  manifest: Manifest.ofObjects(objects),
  properties: [],
  config: { manifest: 'not the one', watchNamespace: 'ns' },
  description: 'Install complete',
};
const manifestText = objects.map(manifestLine).join('');

/** A sink that records whether it was opened. */
function sinks() {
  const opened: string[][] = [];
  return { opened, spill: (aboveBytes = 0) => ({ aboveBytes, open: (): LineSink => opened[opened.push([]) - 1] as string[] }) };
}

/** A payload of the release's JSON with `edit` applied to its text. */
const payload = (edit: (json: string) => string = (j) => j): Buffer => gzipSync(edit(releaseJson(release)));

/** The release's fields but its manifest, and its manifest's text: nothing here parses it. */
function view(r: Release) {
  const text = [...r.manifest.text()].join('');
  const fields = Object.fromEntries(Object.keys(r).flatMap((k) => (k === 'manifest' ? [] : [[k, (r as unknown as Record<string, unknown>)[k]]])));
  return { fields, text };
}

describe('decodeRelease with a sink for large manifests', () => {
  it('reads the manifest into the sink, one line per object, and decodes the same release', async () => {
    const { opened, spill } = sinks();
    const lined = await decodeRelease(await encodeRelease(release), WHERE, 'u', spill());
    expect(opened).toEqual([objects.map((o) => JSON.stringify(o))]);
    const whole = await decodeRelease(await encodeRelease(release), WHERE, 'u');
    expect(view(lined)).toEqual(view(whole));
    expect(view(lined).text).toBe(manifestText);
    expect(lined.manifest.identities()).toEqual(whole.manifest.identities());
    expect(lined.manifest.objects()).toEqual(objects);
  });

  it('decodes a record at or below the size whole, opening no sink', async () => {
    const { opened, spill } = sinks();
    const json = releaseJson(release);
    const r = await decodeRelease(gzipSync(json), WHERE, 'u', spill(Buffer.byteLength(json)));
    expect(opened).toEqual([]);
    expect(r.manifest.objects()).toEqual(objects);
  });

  const manifestOf = (text: string) => (json: string) => json.replace(JSON.stringify(manifestText), JSON.stringify(text));
  it.each([
    ['YAML documents (Helm before upstream wrote JSON lines)', manifestOf('---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n')],
    ['an empty line', manifestOf(`${manifestLine(objects[0] as KubeObject)}\n${manifestLine(objects[1] as KubeObject)}`)],
    ['no "\\n" after the last line', manifestOf(manifestText.slice(0, -1))],
    ['"\\r\\n" line ends', manifestOf(manifestText.replaceAll('\n', '\r\n'))],
    ['a line that is not an object', manifestOf(`${manifestText}[1, 2]\n`)],
    ['an empty manifest', manifestOf('')],
    ['a line end written as "\\u000a"', (j: string) => j.replace('}\\n{', '}\\u000a{')],
  ])('decodes a manifest with %s as the whole decode does, opening no sink', async (_what, edit) => {
    const { opened, spill } = sinks();
    const lined = await decodeRelease(payload(edit), WHERE, 'u', spill());
    const whole = await decodeRelease(payload(edit), WHERE, 'u');
    expect(view(lined).text).toBe(view(whole).text);
    expect(view(lined).fields).toEqual(view(whole).fields);
    expect(opened).toEqual([]);
  });

  it('decodes a record with a second manifest member as the whole decode does (JSON.parse takes the last)', async () => {
    const edit = (j: string) => j.replace(',"manifest":"{', `,"manifest":${JSON.stringify(`${manifestText}${manifestText}`)},"manifest":"{`);
    const { spill } = sinks();
    const lined = await decodeRelease(payload(edit), WHERE, 'u', spill());
    expect(view(lined)).toEqual(view(await decodeRelease(payload(edit), WHERE, 'u')));
    expect(view(lined).text).toBe(manifestText);
    expect(view(lined).fields['config']).toEqual({ manifest: 'not the one', watchNamespace: 'ns' });
  });

  it('reads the release whole when the sink fails part way', async () => {
    let pushed = 0;
    const failing = Object.assign([] as string[], {
      push: (): number => {
        if (++pushed === 2) throw new Error('ENOSPC');
        return pushed;
      },
    });
    const r = await decodeRelease(await encodeRelease(release), WHERE, 'u', { aboveBytes: 0, open: () => failing });
    expect(view(r).text).toBe(manifestText);
    expect(r.manifest.objects()).toEqual(objects);
  });

  it('reports a payload that is not JSON as the whole decode does', async () => {
    const broken = payload((j) => j.replace('}\\n{', '}\\q\\n{'));
    const open = vi.fn((): LineSink => []);
    await expect(decodeRelease(broken, WHERE, 'u', { aboveBytes: 0, open })).rejects.toThrow(
      `release record ${WHERE} is corrupt: the payload is not JSON`,
    );
  });

  it('names the record when a line in the sink is not an object with apiVersion, kind and metadata', async () => {
    const { spill } = sinks();
    const r = await decodeRelease(payload(manifestOf(`${manifestText}{"kind":"ConfigMap"}\n`)), WHERE, 'u', spill());
    expect(() => r.manifest.objects()).toThrow(
      `release record ${WHERE} is corrupt: object 4 is not JSON of an object with apiVersion, kind and metadata`,
    );
  });
});
