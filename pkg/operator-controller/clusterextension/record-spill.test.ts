// The installed step keeps a large record's manifest in a file for the rest of the reconcile
// (decision 0098 item 17): real release records (over fake Secrets) and real line files, read
// back for drift tracking, the comparison with a rendering and a rewrite of the record, and
// closed when the reconcile ends; small records and a cache directory that cannot take files
// leave the text in memory.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeSecrets } from '../../../test/support/fake-secrets.ts';
import { recordingDrift } from '../../../test/support/extension-ports.ts';
import { extensionState } from '../../../test/support/extension-state.ts';
import { jsonEqual } from '../../shared/controller/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import { LineStore } from '../../shared/lines/index.ts';
import { Manifest, createReleaseStore, releaseJson, type Release, type ReleaseStore } from '../release/index.ts';
import { installedStep } from './steps.ts';

const objects: KubeObject[] = Array.from({ length: 5 }, (_, i) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `cm-${i}`, namespace: 'ns' },
  data: { blob: `${i}`.repeat(20_000) },
}));

const deployed = (revision = 1): Release => ({
  extension: 'ext',
  extensionUID: 'u',
  revision,
  status: 'deployed',
  bundle: { package: 'p', name: 'p.v1.0.0', version: '1.0.0', image: 'registry.example/p-bundle:v1.0.0' },
  manifest: Manifest.ofObjects(objects),
  properties: [],
  description: 'Install complete',
});
/** Bytes of the record's JSON (decompressed): what the threshold is compared with. */
const recordBytes = Buffer.byteLength(releaseJson(deployed()));

let dir: string;
let store: ReleaseStore;
/** The line files made (LineStore.file) in a test. */
let opened: LineStore[];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-spill-'));
  store = createReleaseStore({ client: fakeSecrets(new Map()).client, namespace: 'olmv1-system' });
  await store.create(deployed());
  opened = [];
  const file = LineStore.file.bind(LineStore);
  vi.spyOn(LineStore, 'file').mockImplementation((at) => {
    const made = file(at);
    opened.push(made);
    return made;
  });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

/** The installed step with records above `aboveBytes` kept under `spillDir`. */
async function readInstalled(aboveBytes: number, spillDir = join(dir, 'lines')) {
  const calls: string[] = [];
  const state = extensionState();
  await installedStep({ releases: store, drift: recordingDrift(calls), records: { spill: { dir: spillDir, aboveBytes } } }).run(state);
  return { state, calls };
}

describe('the installed step with a large record', () => {
  it('keeps its manifest in a file that serves the reconcile, and closes it when the reconcile ends', async () => {
    const { state, calls } = await readInstalled(recordBytes - 1);
    const [file] = opened;
    expect(opened).toHaveLength(1);
    expect(file?.length).toBe(objects.length);
    // Unlinked at once: nothing on disk by name.
    expect(await readdir(join(dir, 'lines'))).toEqual([]);
    expect(calls).toEqual(['track ext 5 objects']);
    const installed = state.installed;
    if (installed === undefined) throw new Error('nothing installed');
    // The same rendering compares equal (an unchanged release: a repair), another does not.
    const rendering = Manifest.ofLines(
      objects.map((o) => JSON.stringify(o)),
      'the rendering',
    );
    expect(installed.manifest.equals(rendering, jsonEqual)).toBe(true);
    const changed = Manifest.ofLines(
      objects.slice(1).map((o) => JSON.stringify(o)),
      'the rendering',
    );
    expect(installed.manifest.equals(changed, jsonEqual)).toBe(false);
    // The apply rewrites the record (superseded) from the file, as it was.
    await store.update({ ...installed, status: 'superseded' });
    const [reread] = await store.history('ext');
    expect(reread?.status).toBe('superseded');
    expect(reread?.manifest.objects()).toEqual(objects);
    expect(installed.manifest.objects()).toEqual(objects);

    // The reconcile ends (the StepReconciler disposes what it held).
    state.held.dispose();
    expect(() => file?.at(0)).toThrow();
  });

  it('leaves a record at or below the size in memory', async () => {
    const { state } = await readInstalled(recordBytes);
    expect(opened).toEqual([]);
    expect(state.installed?.manifest.objects()).toEqual(objects);
  });

  it('decodes the record whole and goes on when the cache directory cannot take files', async () => {
    const blocked = join(dir, 'not-a-directory');
    await writeFile(blocked, '');
    const { state, calls } = await readInstalled(0, blocked);
    expect(opened).toEqual([]);
    expect(calls).toEqual(['track ext 5 objects']);
    expect(state.installed?.manifest.objects()).toEqual(objects);
  });

  it('keeps every large revision of the history in a file of its own', async () => {
    await store.update({ ...deployed(1), status: 'superseded' });
    await store.create(deployed(2));
    const { state } = await readInstalled(0);
    expect(state.history.map((r) => r.revision)).toEqual([2, 1]);
    expect(opened).toHaveLength(2);
    expect(state.history.every((r) => jsonEqual(r.manifest.objects(), objects))).toBe(true);
    state.held.dispose();
    for (const file of opened) expect(() => file.at(0)).toThrow();
  });
});
