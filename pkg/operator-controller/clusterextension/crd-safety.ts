/**
 * CRD upgrade safety as the preflight and policy steps check it: upstream's rules against the
 * live CRDs (decision 0047), and the stored objects (decisions 0120, 0129): which of them fail
 * a refused change is read always, to name them; only with the opt-in do they decide. `readCrds`
 * is the edge (what the cluster holds); `unsafeCrds` decides from what it read, purely.
 */
import {
  checkCrdChanges,
  crdNames,
  formatCrdUpgradeError,
  STORED_OBJECTS_ANNOTATION,
  storedObjectsOptIn,
  storedObjectsVerdict,
  type StoredVerdict,
  type StoredVerdictCache,
} from '../crdupgrade/index.ts';
import { wrapError } from '../../shared/errors/index.ts';
import { goQuote } from '../../gocompat/gotext/index.ts';
import { isNotFound, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import type { PlannedState } from './pipeline-state.ts';

const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;

/** Reads as the extension's ServiceAccount. */
type Client = Pick<KubeClient, 'get' | 'list' | 'watchEvents'>;

/** A CRD whose proposed change is unsafe, with upstream's error text for it. */
export interface UnsafeCrd {
  name: string;
  error: string;
  /** Which stored objects fail (decision 0129: by default), or, with the opt-in (decision 0120), why they cannot decide. */
  stored?: string;
}

/** How the stored objects are read: for which extension, as whom, with the opt-in or not, through the kept verdicts or not. */
interface StoredObjectsCheck {
  /** The opt-in annotation (decision 0120): a tightening every stored object passes is safe. */
  optIn: boolean;
  extension: string;
  /** `namespace/name` of the ServiceAccount the client reads as. */
  identity: string;
  /** Verdicts kept while nothing changes (decision 0129); none: every read scans. */
  cache?: StoredVerdictCache;
}

/** The stored-object check of `state`'s extension, read as its installer. */
export function storedCheck(state: Pick<PlannedState, 'ce' | 'installer'>, cache: StoredVerdictCache | undefined): StoredObjectsCheck {
  return {
    optIn: storedObjectsOptIn(state.ce.metadata.annotations),
    extension: state.ce.metadata.name,
    identity: `${state.installer.namespace}/${state.installer.name}`,
    ...(cache === undefined ? {} : { cache }),
  };
}

/** What the check read: the installed CRDs by name (a CRD not in the cluster has nothing to break). */
interface CrdReads {
  installed: ReadonlyMap<string, KubeObject>;
  /** The stored-object verdict of each refused CRD that is installed. */
  stored?: ReadonlyMap<string, StoredVerdict>;
  /** Whether the verdicts decide (the opt-in); otherwise they only name the failing objects. */
  optIn?: boolean;
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
    if (read.optIn === true) return stored.letThrough ? [] : [{ name, error, stored: stored.text }];
    // Without the opt-in upstream's refusal stands; the objects are named when they were scanned.
    if (stored.scan === undefined) return [{ name, error }];
    return [
      {
        name,
        error,
        stored: stored.letThrough ? `${stored.text} (the annotation ${STORED_OBJECTS_ANNOTATION}=true would let it through)` : stored.text,
      },
    ];
  });
}

/**
 * Reads, with `client`, what `unsafeCrds` needs of the CRDs among `proposed`: each installed
 * one, a GET each (throws upstream's `getting existing resource for CRD ...` error when a read
 * fails other than not found), and the stored objects of those the rules refuse, through
 * `check.cache` when given (a retry while nothing changed lists nothing).
 */
export async function readCrds(client: Client, proposed: readonly KubeObject[], signal: AbortSignal, check: StoredObjectsCheck): Promise<CrdReads> {
  const installed = new Map<string, KubeObject>();
  for (const name of crdNames(proposed)) {
    try {
      installed.set(name, await client.get({ ...CRD, name }, { signal }));
    } catch (err) {
      if (!isNotFound(err)) throw wrapError(`getting existing resource for CRD ${goQuote(name)}`, err);
    }
  }
  const stored = new Map<string, StoredVerdict>();
  const reader = { extension: check.extension, identity: check.identity, client };
  for (const { name, violations } of refused(proposed, installed)) {
    const live = installed.get(name);
    const crd = proposed.find((o) => o.kind === CRD.kind && o.metadata.name === name);
    if (live === undefined || crd === undefined) continue;
    const verdict =
      check.cache === undefined
        ? await storedObjectsVerdict(client, live, crd, violations, signal)
        : await check.cache.verdict(reader, live, crd, violations, signal);
    stored.set(name, verdict);
  }
  return { installed, stored, optIn: check.optIn };
}
