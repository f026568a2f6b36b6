// The validate step with a fake controller client: what it reads and the message of each
// missing object; the end-to-end behaviour is in test/e2e/operator-controller-failures.test.ts.
import { describe, expect, it } from 'vitest';
import { isTerminal } from '../../shared/errors/index.ts';
import { POLL } from '../../shared/controller/index.ts';
import { ApiError, type KubeObject, type ObjectRef } from '../../shared/kube/index.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { validateStep, type ValidatePorts } from './steps-validate.ts';
import { extensionState } from '../../../test/support/extension-state.ts';

/** Ports whose client answers GETs of `present` kinds (`Kind/name`), 404s the rest, or throws `failure`; `reads` records them, `events` the Events' notes. */
function portsWith(present: string[], reads: string[], failure?: Error, events: string[] = []): ValidatePorts {
  const client = {
    get: async <T extends KubeObject>(ref: ObjectRef): Promise<T> => {
      const id = `${ref.kind}/${ref.name}`;
      reads.push(id);
      if (failure !== undefined) throw failure;
      if (present.includes(id)) return { apiVersion: 'v1', kind: ref.kind, metadata: { name: ref.name } } as T;
      const resource = ref.kind === 'Namespace' ? 'namespaces' : 'serviceaccounts';
      throw new ApiError(404, 'NotFound', `${resource} "${ref.name}" not found`, { name: ref.name, kind: resource });
    },
  } satisfies ValidatePorts['client'];
  return { client, events: { event: (_o, type, reason, _action, note) => void events.push(`${type} ${reason}: ${note}`) } };
}

const validate = async (ports: ValidatePorts, s: ExtensionState) => validateStep(ports).run(s);

const state = (): ExtensionState => extensionState();

function progressingMessage(s: ExtensionState): string | undefined {
  return s.ce.status?.conditions?.find((c) => c.type === 'Progressing')?.message;
}

const PREFIX = 'operation cannot proceed due to the following validation error(s): ';

describe('validate step', () => {
  it('reads only the ServiceAccount when it exists', async () => {
    const reads: string[] = [];
    const s = state();
    expect(await validate(portsWith(['Namespace/ns', 'ServiceAccount/sa'], reads), s)).toBeUndefined();
    expect(reads).toEqual(['ServiceAccount/sa']);
    expect(s.ce.status).toBeUndefined();
  });

  it('reads no ServiceAccount the cache holds, its own or the default installer (decision 0155); one it lacks is read', async () => {
    const reads: string[] = [];
    const accounts = {
      get: (key: string) =>
        ['ns/sa', 'olmv1-system/default'].includes(key) ? { apiVersion: 'v1', kind: 'ServiceAccount', metadata: {} } : undefined,
    };
    expect(await validate({ ...portsWith(['Namespace/ns'], reads), accounts }, state())).toBeUndefined();
    expect(reads).toEqual([]);
    const byDefault = extensionState({ installer: { namespace: 'olmv1-system', name: 'default', isDefault: true } });
    expect(await validate({ ...portsWith(['Namespace/ns'], reads), accounts }, byDefault)).toBeUndefined();
    expect(reads).toEqual(['Namespace/ns']);
    const other = extensionState({ installer: { namespace: 'ns', name: 'other', isDefault: false } });
    expect(await validate({ ...portsWith(['Namespace/ns', 'ServiceAccount/other'], reads), accounts }, other)).toBeUndefined();
    expect(reads).toEqual(['Namespace/ns', 'ServiceAccount/other']);
  });

  it("names a missing ServiceAccount in upstream's words; the commands that create it are a Warning Event, once", async () => {
    const reads: string[] = [];
    const events: string[] = [];
    const ports = portsWith(['Namespace/ns'], reads, undefined, events);
    const step = validateStep(ports);
    const s = state();
    expect(await step.run(s)).toBe(POLL);
    expect(reads).toEqual(['ServiceAccount/sa', 'Namespace/ns']);
    expect(progressingMessage(s)).toBe(`${PREFIX}service account "sa" not found in namespace "ns"`);
    expect(await step.run(state())).toBe(POLL);
    expect(events).toEqual([
      'Warning InstallerMissing: service account "sa" not found in namespace "ns"\ncreate it (kubectl create serviceaccount sa -n ns) and grant it the RBAC that "olmv1 rbac" prints',
    ]);
  });

  it('a missing namespace has the same condition (upstream reads only the ServiceAccount); the Event names the namespace', async () => {
    const events: string[] = [];
    const s = state();
    expect(await validate(portsWith([], [], undefined, events), s)).toBe(POLL);
    expect(progressingMessage(s)).toBe(`${PREFIX}service account "sa" not found in namespace "ns"`);
    expect(events).toEqual([
      'Warning InstallerMissing: service account "sa" not found in namespace "ns"\nnamespace "ns" not found: create it (kubectl create namespace ns), then the service account (kubectl create serviceaccount sa -n ns) with the RBAC that "olmv1 rbac" prints',
    ]);
  });

  it('reports a failed read as such', async () => {
    const s = state();
    await validate(portsWith([], [], new ApiError(500, 'InternalError', 'etcdserver: request timed out')), s);
    expect(progressingMessage(s)).toBe(`${PREFIX}error getting service account: etcdserver: request timed out`);
  });

  it('refuses, terminally and without a read, a name that can never be a release name (admitted before the CRD rule)', async () => {
    const reads: string[] = [];
    const name = 'x'.repeat(64);
    const s = extensionState({
      name,
    });
    const err = await validate(portsWith([], reads), s).catch((e: unknown) => e);
    expect(isTerminal(err)).toBe(true);
    expect(reads).toEqual([]);
    expect(progressingMessage(s)).toMatch(
      /^operation cannot proceed due to the following validation error\(s\): invalid ClusterExtension name "x{64}": name becomes the Helm release name/,
    );
  });

  it('without a serviceAccount and without a default installer, blocks (no poll) with both ways out', async () => {
    const reads: string[] = [];
    const s = extensionState({ spec: { serviceAccount: undefined } });
    delete s.installer;
    expect(await validate(portsWith([], reads), s)).toEqual({});
    expect(reads).toEqual([]);
    expect(progressingMessage(s)).toContain('--default-install-service-account NAMESPACE/NAME');
  });

  it('with the default installer, checks the install namespace and that ServiceAccount', async () => {
    const reads: string[] = [];
    const s = extensionState({ installer: { namespace: 'olmv1-system', name: 'default', isDefault: true } });
    expect(await validate(portsWith(['Namespace/ns'], reads), s)).toBe(POLL);
    expect(reads).toEqual(['Namespace/ns', 'ServiceAccount/default']);
    expect(progressingMessage(s)).toBe(
      `${PREFIX}the default install service account olmv1-system/default (--default-install-service-account) does not exist: create it with the RBAC the extensions need, or set spec.serviceAccount`,
    );
  });
});
