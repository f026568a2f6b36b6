import { describe, expect, it } from 'vitest';
import { ApiError } from '../../shared/kube/index.ts';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';
import { catalogChanges, jsonPatch, updateExtension } from './update.ts';

const ce = (catalog: Record<string, unknown>) => ({
  apiVersion: 'olm.operatorframework.io/v1',
  kind: 'ClusterExtension',
  metadata: { name: 'ext' },
  spec: { namespace: 'ns', serviceAccount: { name: 'sa' }, source: { sourceType: 'Catalog', catalog: { packageName: 'p', ...catalog } } },
});
const catalogOf = (c: ReturnType<typeof fakeCluster>) =>
  (c.live({ kind: 'ClusterExtension', metadata: { name: 'ext' } })?.spec as { source: { catalog: Record<string, unknown> } }).source.catalog;

describe('updateExtension', () => {
  it('writes only the fields that change, by one JSON patch tested against the resourceVersion read', async () => {
    const c = fakeCluster();
    c.seed(ce({ version: '1.0.0', channels: ['stable'] }));
    const r = await updateExtension(c.client, { name: 'ext', fields: { version: '1.0.0', channels: ['candidate'] }, dryRun: false });
    expect(r).toEqual({ ok: true, updated: true, lines: ['spec.source.catalog.channels: ["stable"] -> ["candidate"]'] });
    expect(catalogOf(c)).toEqual({ packageName: 'p', version: '1.0.0', channels: ['candidate'] });
    expect(c.writes).toEqual(['patch ClusterExtension ext']);
  });

  it('writes nothing on a dry run or when nothing changes; an empty value (null) removes the field', async () => {
    const c = fakeCluster();
    c.seed(ce({ version: '1.0.0' }));
    expect(await updateExtension(c.client, { name: 'ext', fields: { version: null }, dryRun: true })).toEqual({
      ok: true,
      updated: false,
      lines: ['spec.source.catalog.version: "1.0.0" -> unset'],
    });
    expect(await updateExtension(c.client, { name: 'ext', fields: { version: '1.0.0' }, dryRun: false })).toEqual({
      ok: true,
      updated: false,
      lines: [],
    });
    expect(c.writes).toEqual([]);
    expect((await updateExtension(c.client, { name: 'ext', fields: { version: null }, dryRun: false })).ok).toBe(true);
    expect(catalogOf(c)).toEqual({ packageName: 'p' });
  });

  it("answers a missing extension, a conflict and a refusal in the command's words", async () => {
    const c = fakeCluster();
    expect(await updateExtension(c.client, { name: 'ext', fields: { version: '2' }, dryRun: false })).toEqual({
      ok: false,
      error: 'ClusterExtension "ext" not found',
    });
    c.seed(ce({}));
    c.refuse('patch ClusterExtension ext', new ApiError(409, 'Conflict', 'the object has been modified'));
    expect(await updateExtension(c.client, { name: 'ext', fields: { version: '2' }, dryRun: false })).toEqual({
      ok: false,
      lines: ['spec.source.catalog.version: unset -> "2"'],
      error: 'ClusterExtension "ext" changed while it was being updated: run the command again',
    });
    c.refuse('patch ClusterExtension ext', new ApiError(403, 'Forbidden', 'clusterextensions.olm.operatorframework.io "ext" is forbidden'));
    expect(await updateExtension(c.client, { name: 'ext', fields: { version: '2' }, dryRun: false })).toMatchObject({
      ok: false,
      error: 'error updating ClusterExtension "ext": clusterextensions.olm.operatorframework.io "ext" is forbidden',
    });
  });
});

describe('catalogChanges and jsonPatch', () => {
  it('show old and new values and remove a field set to null', () => {
    const { lines, patch } = catalogChanges({ version: '1.0.0' }, { version: '1.x', channels: ['fast'] });
    expect(lines).toEqual(['spec.source.catalog.version: "1.0.0" -> "1.x"', 'spec.source.catalog.channels: unset -> ["fast"]']);
    expect(jsonPatch('7', { ...patch, version: null })).toEqual([
      { op: 'test', path: '/metadata/resourceVersion', value: '7' },
      { op: 'remove', path: '/spec/source/catalog/version' },
      { op: 'add', path: '/spec/source/catalog/channels', value: ['fast'] },
    ]);
  });
});
