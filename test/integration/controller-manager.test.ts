// startControlPlane({ controllerManager: true }) runs kube-controller-manager (the local
// stack's control plane, `olmv1 up`): a deleted namespace finishes deleting, the garbage
// collector deletes an object whose owner is gone, a Deployment gets a ReplicaSet (whose Pods
// are created but never scheduled), namespaces get their `default` ServiceAccount and
// `kube-root-ca.crt`, and a ValidatingAdmissionPolicy gets status.typeChecking. stop() leaves
// no kube-controller-manager behind. Its own control plane: the shared one runs without it.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../pkg/olmv1/localstack/index.ts';

const exec = promisify(execFile);
let cp: ControlPlane;

const kubectl = async (...args: string[]): Promise<string> => (await exec(cp.info.kubectl, ['--kubeconfig', cp.info.kubeconfigPath, ...args])).stdout;

/** Applies `obj` (JSON is YAML) and returns it as created. */
async function apply(obj: object): Promise<{ metadata: { uid: string } }> {
  const child = execFile(cp.info.kubectl, ['--kubeconfig', cp.info.kubeconfigPath, 'apply', '-o', 'json', '-f', '-']);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  child.stdin?.end(JSON.stringify(obj));
  const code = await new Promise((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`kubectl apply failed: ${err}`);
  return JSON.parse(out) as { metadata: { uid: string } };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  try {
    return await vi.waitFor(
      async () => {
        const value = await probe();
        if (value === undefined) throw new Error(`not yet: ${what}`);
        return value;
      },
      { timeout: timeoutMs, interval: 250 },
    );
  } catch (err) {
    throw new Error(`timed out waiting for ${what}\n${readFileSync(cp.logs.controllerManager, 'utf8').slice(-3000)}`, { cause: err });
  }
}

const exists = async (...args: string[]): Promise<boolean> => (await kubectl('get', ...args, '--ignore-not-found', '-o', 'name')).trim() !== '';

beforeAll(async () => {
  cp = await startControlPlane({ binaries: inject('envtestBinaries'), controllerManager: true });
});

afterAll(async () => {
  await cp?.stop();
});

describe('a control plane with kube-controller-manager', () => {
  it('finishes deleting a namespace with content, which first gets its default ServiceAccount and kube-root-ca.crt', async () => {
    await kubectl('create', 'namespace', 'doomed');
    await kubectl('-n', 'doomed', 'create', 'configmap', 'content', '--from-literal=a=b');
    await until('the default ServiceAccount', async () => ((await exists('-n', 'doomed', 'serviceaccount', 'default')) ? true : undefined));
    await until('kube-root-ca.crt', async () => ((await exists('-n', 'doomed', 'configmap', 'kube-root-ca.crt')) ? true : undefined));
    await kubectl('delete', 'namespace', 'doomed', '--timeout=60s');
    expect(await exists('namespace', 'doomed')).toBe(false);
  });

  it('garbage-collects a ConfigMap whose owner was deleted, and keeps one without owner', async () => {
    await kubectl('create', 'namespace', 'gc');
    const owner = await apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner', namespace: 'gc' } });
    await apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'owned',
        namespace: 'gc',
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }],
      },
    });
    await apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bystander', namespace: 'gc' } });
    await kubectl('-n', 'gc', 'delete', 'configmap', 'owner');
    await until('the owned ConfigMap to be collected', async () => ((await exists('-n', 'gc', 'configmap', 'owned')) ? undefined : true));
    expect(await exists('-n', 'gc', 'configmap', 'bystander')).toBe(true);
  });

  it('gives a Deployment a ReplicaSet, whose Pod is created but never scheduled', async () => {
    await kubectl('create', 'namespace', 'apps');
    const deployment = await apply({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'apps' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'example.invalid/web:1' }] } },
      },
    });
    const rs = await until('a ReplicaSet of the Deployment', async () => {
      const list = JSON.parse(await kubectl('-n', 'apps', 'get', 'replicasets', '-o', 'json')) as {
        items: Array<{ metadata: { name: string; ownerReferences?: Array<{ uid: string; controller?: boolean }> } }>;
      };
      return list.items.find((i) => i.metadata.ownerReferences?.some((o) => o.uid === deployment.metadata.uid && o.controller === true));
    });
    expect(rs.metadata.name).toMatch(/^web-/);
    const pod = await until('a Pod of the ReplicaSet', async () => {
      const list = JSON.parse(await kubectl('-n', 'apps', 'get', 'pods', '-o', 'json')) as {
        items: Array<{ spec: { nodeName?: string }; status: { phase?: string } }>;
      };
      return list.items[0];
    });
    expect(pod.status.phase).toBe('Pending');
    expect(pod.spec.nodeName).toBeUndefined();
  });

  it('type-checks a ValidatingAdmissionPolicy into its status', async () => {
    await apply({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'typed' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }] },
        // replicas is an integer: comparing it with a string is a type error the checker reports.
        validations: [{ expression: "object.spec.replicas == 'one'" }],
      },
    });
    const status = await until('status.typeChecking', async () => {
      const vap = JSON.parse(await kubectl('get', 'validatingadmissionpolicy', 'typed', '-o', 'json')) as {
        status?: { observedGeneration?: number; typeChecking?: { expressionWarnings?: Array<{ fieldRef: string; warning: string }> } };
      };
      return vap.status?.typeChecking === undefined ? undefined : vap.status;
    });
    expect(status.observedGeneration).toBe(1);
    expect(status.typeChecking?.expressionWarnings).toEqual([
      expect.objectContaining({ fieldRef: 'spec.validations[0].expression', warning: expect.stringContaining('no matching overload') }),
    ]);
  });

  it('stops kube-controller-manager with the control plane', async () => {
    const mentioning = (): number[] =>
      readdirSync('/proc')
        .filter((e) => /^\d+$/.test(e))
        .filter((e) => {
          try {
            return readFileSync(`/proc/${e}/cmdline`, 'utf8').includes(`${cp.info.dir}/kube-controller-manager.kubeconfig`);
          } catch {
            return false;
          }
        })
        .map(Number);
    expect(mentioning()).toHaveLength(1);
    await cp.stop();
    expect(mentioning()).toEqual([]);
  });
});
