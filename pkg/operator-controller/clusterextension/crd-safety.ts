/**
 * CRD upgrade safety as the preflight and policy steps check it: upstream's rules against the
 * live CRDs (decision 0047), and the stored-object opt-in (decision 0120).
 */
import { checkCrdChanges, crdNames, formatCrdUpgradeError, storedObjectsVerdict } from '../crdupgrade/index.ts';
import { wrapError } from '../../shared/errors/index.ts';
import { goQuote } from '../../gocompat/gotext/index.ts';
import { isNotFound, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';

const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;

/** A CRD whose proposed change is unsafe, with upstream's error text for it. */
export interface UnsafeCrd {
  name: string;
  error: string;
  /** With the stored-object opt-in (decision 0120): which stored objects fail, or why they cannot decide. */
  stored?: string;
}

/**
 * The CRDs among `objects` whose change from the installed one is unsafe, read with `client`;
 * a CRD not in the cluster has nothing to break. Throws upstream's `getting existing resource
 * for CRD ...` error when a read fails. With `storedObjects` (the ClusterExtension's opt-in,
 * decision 0120), a tightening every stored object passes is not unsafe; otherwise the
 * stored-object verdict rides along for Events and the plan, upstream's error text unchanged.
 */
export async function unsafeCrdChanges(
  client: Pick<KubeClient, 'get' | 'list'>,
  objects: readonly KubeObject[],
  signal: AbortSignal,
  storedObjects = false,
): Promise<UnsafeCrd[]> {
  const installed = new Map<string, KubeObject>();
  for (const name of crdNames(objects)) {
    try {
      installed.set(name, await client.get({ ...CRD, name }, { signal }));
    } catch (err) {
      if (!isNotFound(err)) throw wrapError(`getting existing resource for CRD ${goQuote(name)}`, err);
    }
  }
  const unsafe: UnsafeCrd[] = [];
  for (const c of checkCrdChanges(objects, installed)) {
    if (c.violations.length === 0) continue;
    const error = formatCrdUpgradeError(c.name, c.violations);
    const live = installed.get(c.name);
    const proposed = objects.find((o) => o.kind === 'CustomResourceDefinition' && o.metadata.name === c.name);
    if (!storedObjects || live === undefined || proposed === undefined) {
      unsafe.push({ name: c.name, error });
      continue;
    }
    const verdict = await storedObjectsVerdict(client, live, proposed, c.violations, signal);
    if (!verdict.letThrough) unsafe.push({ name: c.name, error, stored: verdict.text });
  }
  return unsafe;
}
