// A release record whose Secrets hold a gzip bomb (issue #42): one gzip member of 1 GiB of
// zeros, ~1 MB, stored as upstream's chunked driver stores a record (an index Secret and a
// chunk Secret, test/support/upstream-release-records.ts) for a ClusterExtension. Decoding it
// whole took operator-controller to 3 GB; the bound on what a record decompresses to
// (pkg/operator-controller/release codec.ts) makes it a corrupt record, named in the
// extension's status, while the process, started as its Deployment starts it (Node flags and
// glibc settings of cmd/operator-controller/node-flags.ts), stays under 256 MB however often
// the reconcile is retried, and nothing is deleted.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_CONTROLLER_ENVIRONMENT, OPERATOR_CONTROLLER_NODE_FLAGS } from '../../cmd/operator-controller/node-flags.ts';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { type KubeContext, type KubeObject, connect } from '../../pkg/shared/kube/index.ts';
import { Reaper } from '../envtest/index.ts';
import { type ControllerProcess, logLines, startControllerProcess } from '../support/controller-process.ts';
import { clusterExtension, getExtension } from '../support/extensions.ts';
import { zeroGzipMember } from '../support/image-bombs.ts';
import { installOlmConfig } from '../support/olm-config.ts';
import { upstreamRecordOf } from '../support/upstream-release-records.ts';
import { useOwnControlPlane } from '../support/own-control-plane.ts';

const run = randomBytes(3).toString('hex');
const NAME = `bomb-${run}`;
const MB = 1_000_000;
const CE = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind };

let kube: KubeContext;
let reaper: Reaper;
let work: string;
let controller: ControllerProcess | undefined;

/** The process's peak resident memory (VmHWM), in bytes. */
async function peakRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kB = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kB === undefined) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(kB) * 1024;
}

/** Failed reconciles of the extension the controller has logged so far. */
async function failedReconciles(c: ControllerProcess): Promise<number> {
  return (await logLines(c)).filter((l) => l['msg'] === 'Reconciler error' && l['key'] === NAME).length;
}

// Its own control plane, with kube-controller-manager running, as issue #42 asks of each safety break's proof.
const own = useOwnControlPlane({ controllerManager: true });

beforeAll(async () => {
  const cp = own.info;
  await installOlmConfig(cp);
  kube = await connect({ kind: 'file', path: cp.kubeconfigPath });
  await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'olmv1-system' } }).catch(() => undefined);
  reaper = Reaper.start();
  work = await mkdtemp(join(tmpdir(), 'release-bomb-'));
});

afterAll(async () => {
  await controller?.proc.stop();
  if (kube !== undefined) {
    await kube.client.patch({ ...CE, name: NAME }, { metadata: { finalizers: null } }, 'merge').catch(() => undefined);
    await kube.client.delete({ ...CE, name: NAME }).catch(() => undefined);
    kube.close();
  }
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe('a release record holding a gzip bomb', () => {
  it('is reported as that record being corrupt, operator-controller stays under 256 MB, and nothing is deleted', async () => {
    const { client } = kube;
    // The extension, its namespace and ServiceAccount, and an object its record would own.
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAME } });
    await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'installer', namespace: NAME } });
    const owned = await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'settings',
        namespace: NAME,
        labels: { 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': NAME },
      },
      data: { kept: 'yes' },
    });
    const ce = await client.create(clusterExtension(NAME, { namespace: NAME, serviceAccount: 'installer', packageName: NAME }));

    // Revision 1, deployed, as upstream stores it; its payload 1 GiB of zeros in one gzip member.
    const bomb = await zeroGzipMember(1024 * 1024 * 1024);
    const record = upstreamRecordOf(bomb, { name: NAME, version: 1, status: 'deployed' }, 'olmv1-system', {
      name: NAME,
      uid: ce.metadata.uid ?? '',
    });
    const index = await client.create(record.index);
    const secrets: KubeObject[] = [index];
    for (const chunk of record.chunks(index.metadata.uid ?? '')) secrets.push(await client.create(chunk));
    expect(secrets.length).toBe(2);

    // Started once the record is there: its first reconcile meets the bomb.
    controller = await startControllerProcess({
      name: `oc-bomb-${run}`,
      cp: own.info,
      cacheDir: await mkdtemp(join(work, 'cache-')),
      logDir: work,
      reaper,
      nodeFlags: OPERATOR_CONTROLLER_NODE_FLAGS,
      env: OPERATOR_CONTROLLER_ENVIRONMENT,
      args: ['--leader-elect=false'],
    });
    const c = controller;
    const where = `Secret "olmv1-system/${record.key}"`;
    await expect
      .poll(async () => (await getExtension(client, NAME)).cond('Installed')?.message ?? '', { timeout: 120_000, interval: 250 })
      .toMatch(`release record ${where} is corrupt: `);
    // Retried, each time reading the record again.
    await expect.poll(() => failedReconciles(c), { timeout: 120_000, interval: 500 }).toBeGreaterThanOrEqual(4);

    const installed = (await getExtension(client, NAME)).cond('Installed');
    expect.soft(installed).toMatchObject({
      status: 'Unknown',
      reason: 'Failed',
      message: `release record ${where} is corrupt: its payload decompresses to more than 64 MiB (${(bomb.length / 1024).toFixed(1)} KiB compressed)`,
    });
    const peak = await peakRss(c.proc.pid);
    console.log(
      `operator-controller's peak RSS with a ${(bomb.length / MB).toFixed(2)} MB gzip bomb in a release record: ${(peak / MB).toFixed(0)} MB`,
    );
    expect.soft(peak).toBeLessThan(256 * MB);
    expect(c.proc.exitStatus()).toBeUndefined();

    // Nothing deleted: the record's Secrets, the owned object, the namespace and the extension.
    for (const obj of [...secrets, owned, ce]) {
      const ref = { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name ?? '', namespace: obj.metadata.namespace };
      expect((await client.get(ref)).metadata.uid, `${obj.kind} ${obj.metadata.name ?? ''}`).toBe(obj.metadata.uid);
    }
  });
});
