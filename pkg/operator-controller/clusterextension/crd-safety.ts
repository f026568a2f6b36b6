/**
 * CRD upgrade safety as the preflight and policy steps check it: upstream's rules against the
 * live CRDs (decision 0047), and the stored-object opt-in (decision 0120). `readCrds` is the
 * edge (what the cluster holds); `unsafeCrds` decides from what it read, purely.
 */
import { checkCrdChanges, crdNames, formatCrdUpgradeError, storedObjectsVerdict, type StoredVerdict } from '../crdupgrade/index.ts';
import { wrapError } from '../../shared/errors/index.ts';
import { goQuote } from '../../gocompat/gotext/index.ts';
import { isNotFound, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';

const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;

/** Reads as the extension's ServiceAccount. */
type Client = Pick<KubeClient, 'get' | 'list'>;

/** A CRD whose proposed change is unsafe, with upstream's error text for it. */
export interface UnsafeCrd {
  name: string;
  error: string;
  /** With the stored-object opt-in (decision 0120): which stored objects fail, or why they cannot decide. */
  stored?: string;
}

/** What the check read: the installed CRDs by name (a CRD not in the cluster has nothing to break). */
interface CrdReads {
  installed: ReadonlyMap<string, KubeObject>;
  /**
   * Only with the stored-object opt-in: the stored-object verdict of each refused CRD that is
   * installed; a tightening every stored object passes is not unsafe.
   */
  stored?: ReadonlyMap<string, StoredVerdict>;
}

/** The CRD changes among `proposed` that upstream's rules refuse. */
function refused(proposed: readonly KubeObject[], installed: ReadonlyMap<string, KubeObject>) {
  return checkCrdChanges(proposed, installed).filter((c) => c.violations.length > 0);
}

/**
 * The verdict on replacing the installed CRDs by those among `proposed` (pure): the unsafe
 * ones, none when it is safe. A CRD the release no longer has is not checked: it is kept, not
 * replaced. A stored-object verdict, when read, only lets a change through or adds its text.
 */
export function unsafeCrds(proposed: readonly KubeObject[], read: CrdReads): UnsafeCrd[] {
  return refused(proposed, read.installed).flatMap(({ name, violations }): UnsafeCrd[] => {
    const error = formatCrdUpgradeError(name, violations);
    const stored = read.stored?.get(name);
    if (stored === undefined) return [{ name, error }];
    return stored.letThrough ? [] : [{ name, error, stored: stored.text }];
  });
}

/**
 * Reads, with `client`, what `unsafeCrds` needs of the CRDs among `proposed`: each installed
 * one, a GET each (throws upstream's `getting existing resource for CRD ...` error when a read
 * fails other than not found), and with `storedObjects` (the ClusterExtension's opt-in,
 * decision 0120) the stored objects of those the rules refuse.
 */
export async function readCrds(client: Client, proposed: readonly KubeObject[], signal: AbortSignal, storedObjects: boolean): Promise<CrdReads> {
  const installed = new Map<string, KubeObject>();
  for (const name of crdNames(proposed)) {
    try {
      installed.set(name, await client.get({ ...CRD, name }, { signal }));
    } catch (err) {
      if (!isNotFound(err)) throw wrapError(`getting existing resource for CRD ${goQuote(name)}`, err);
    }
  }
  if (!storedObjects) return { installed };
  const stored = new Map<string, StoredVerdict>();
  for (const { name, violations } of refused(proposed, installed)) {
    const live = installed.get(name);
    const crd = proposed.find((o) => o.kind === CRD.kind && o.metadata.name === name);
    if (live !== undefined && crd !== undefined) stored.set(name, await storedObjectsVerdict(client, live, crd, violations, signal));
  }
  return { installed, stored };
}
