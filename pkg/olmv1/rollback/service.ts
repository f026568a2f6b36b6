/**
 * `olmv1 release rollback`'s service: patches a ClusterExtension's spec back to a recorded
 * revision's bundle and leaves the rest to operator-controller, after checking the way back
 * against the live CRDs and that the patched spec resolves to it (the decisions are
 * pkg/operator-controller/rollback). Both runtimes alike: under BoxcutterRuntime
 * operator-controller installs the pinned bundle as a new revision with the old content, as
 * upstream's runtime goes back: forward, to old content. The command and the console call it.
 */
import { CLUSTER_EXTENSION, parseClusterExtension, UpgradeConstraintPolicy, type ClusterExtension } from '../../shared/api/index.ts';
import { err, errorMessage, ok, type Result } from '../../shared/errors/index.ts';
import { isConflict, isNotFound, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import type { ResolveInput } from '../../operator-controller/resolve/index.ts';
import {
  checkRollbackCrds,
  checkRollbackResolves,
  chooseRollbackTarget,
  readExtensionView,
  rollbackCrdNames,
  rollbackPatch,
  type RollbackPatch,
} from '../../operator-controller/rollback/index.ts';
import { createRevisionReader, newest, type Revision } from '../../operator-controller/revisions/index.ts';

/** What to roll back. */
interface RollbackRequest {
  extension: string;
  /** The revision to go back to; by default the newest earlier one deployed with another bundle. */
  revision?: number | undefined;
  /** Check and return the patch; write nothing. */
  dryRun?: boolean;
  /** operator-controller's namespace (its Helm release records). */
  systemNamespace: string;
}

/** A ClusterExtension's catalog source, as the rollback would patch it. */
type CatalogSource = NonNullable<ClusterExtension['spec']['source']['catalog']>;

/** What the service needs: the user's client, and what the patched spec resolves against. */
export interface RollbackPorts {
  client: KubeClient;
  /** The cluster's catalogs as operator-controller resolves `source` (`olmv1 resolve --cluster`), or why they cannot be read. */
  resolveInput(source: CatalogSource, installed: ResolveInput['installed']): Promise<Result<ResolveInput, string>>;
}

/** A rollback checked, and written unless it was a dry run. */
export interface RollbackDone {
  extension: string;
  /** The installed revision it goes back from. */
  from: Revision;
  /** The revision whose bundle it goes back to. */
  to: Revision;
  /** True when `to` was chosen (no revision was asked for). */
  chosen: boolean;
  /** The spec changes, the merge patch, the pin and how to put the previous values back. */
  patch: RollbackPatch;
  /** The number operator-controller gives the revision it records for the rollback. */
  newRevision: number;
  /** False for a dry run. */
  written: boolean;
  /** Resolution and CRD warnings, and the CRD check's notes. */
  warnings: string[];
  notes: string[];
}

/** Why nothing was written, and the revisions when the revision asked for was not one to go back to. */
export interface RollbackRefusal {
  error: string;
  revisions?: readonly Revision[];
}

const CE = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind };
const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };

/** Refusal of a run: thrown inside, returned as a value at the end. */
class Refused extends Error {
  readonly refusal: RollbackRefusal;
  constructor(refusal: RollbackRefusal) {
    super(refusal.error);
    this.refusal = refusal;
  }
}

/**
 * Rolls `r.extension` back. Refusals (no such revision, unsafe CRD change, no selected catalog
 * offers the bundle, a concurrent edit) are values; a cluster that cannot be read or written
 * rejects with an Error naming the read, with its cause.
 */
export async function rollBack(ports: RollbackPorts, r: RollbackRequest): Promise<Result<RollbackDone, RollbackRefusal>> {
  try {
    return ok(await run(ports, r));
  } catch (e) {
    if (e instanceof Refused) return err(e.refusal);
    throw e;
  }
}

async function run(ports: RollbackPorts, r: RollbackRequest): Promise<RollbackDone> {
  const { client } = ports;
  const name = JSON.stringify(r.extension);
  const obj = await read(`reading ClusterExtension ${name}`, () => client.get({ ...CE, name: r.extension }), `ClusterExtension ${name} not found`);
  if (obj.metadata.deletionTimestamp !== undefined) throw refused(`ClusterExtension ${name} is being deleted`);
  const view = readExtensionView(obj);
  if (!view.ok) throw refused(view.error);
  // Its revisions wherever its runtime keeps them: ClusterObjectSets, else Helm release records.
  const revisions = await read(
    `reading the revisions of ${name} (ClusterObjectSets, or release records in namespace ${JSON.stringify(r.systemNamespace)})`,
    () => createRevisionReader({ client, namespace: r.systemNamespace }).revisions(r.extension),
  );
  const chosen = chooseRollbackTarget(
    r.extension,
    revisions.map((x) => x.record),
    r.revision,
  );
  if (!chosen.ok) throw new Refused({ error: chosen.error, revisions });
  const { deployed, target } = chosen.value;
  const patch = rollbackPatch(view.value, target.bundle);
  if (!patch.ok) throw refused(`cannot roll back ${name} to revision ${target.revision}: ${patch.error}`);

  const live = new Map<string, KubeObject>();
  for (const crd of rollbackCrdNames(deployed, target)) {
    const found = await read(`reading CustomResourceDefinition ${JSON.stringify(crd)} to check the way back`, () =>
      client.get({ ...CRD, name: crd }).catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e))),
    );
    if (found !== undefined) live.set(crd, found);
  }
  const verdict = checkRollbackCrds({ deployed, target, live, enforcement: view.value.enforcement });
  if (verdict.refusals.length > 0) {
    const lines = [
      `refusing to roll back ${name} to revision ${target.revision} (${target.bundle.name}): operator-controller's CRD upgrade-safety preflight would block it. Nothing was changed.`,
      ...verdict.refusals,
      ...verdict.notes.map((n) => `note: ${n}`),
    ];
    throw refused(lines.join('\n'));
  }
  const resolution = await resolvesAfterPatch(ports, r.extension, obj, chosen.value, patch.value.pin);
  if (r.dryRun !== true) await writePatch(client, obj, patch.value.patch);
  const byNumber = (n: number) => revisions.find((x) => x.number === n) as Revision;
  return {
    extension: r.extension,
    from: byNumber(deployed.revision),
    to: byNumber(target.revision),
    chosen: chosen.value.chosen,
    patch: patch.value,
    newRevision: (newest(revisions)?.number ?? 0) + 1,
    written: r.dryRun !== true,
    warnings: [
      ...(resolution.warning === undefined ? [] : [resolution.warning]),
      ...verdict.warnings.map((w) => `enforcement is None, so operator-controller applies this unsafe CRD change:\n${w}`),
    ],
    notes: verdict.notes,
  };
}

function refused(error: string): Refused {
  return new Refused({ error });
}

/** Checks that the spec as patched resolves, as operator-controller resolves, to the target's bundle. */
async function resolvesAfterPatch(
  ports: RollbackPorts,
  extension: string,
  obj: KubeObject,
  t: { deployed: Revision['record']; target: Revision['record'] },
  pin: string,
): Promise<{ warning: string | undefined }> {
  const parsed = parseClusterExtension(obj);
  const source = parsed.ok ? parsed.value.spec.source.catalog : undefined;
  if (source === undefined) {
    throw refused(`ClusterExtension ${JSON.stringify(extension)} ${parsed.ok ? 'has no spec.source.catalog' : `does not parse: ${parsed.error}`}`);
  }
  const src = { ...source, version: pin, upgradeConstraintPolicy: UpgradeConstraintPolicy.SelfCertified };
  const b = t.deployed.bundle;
  const installed = { name: b.name, version: b.version, release: b.release ?? null };
  const input = await read('reading the ClusterCatalogs to check the way back', () => ports.resolveInput(src, installed));
  const verdict = checkRollbackResolves(extension, t.target, pin, input);
  if (!verdict.ok) throw refused(verdict.error);
  return verdict.value;
}

/** Conflicts retried when only status or other metadata moved on. */
const CONFLICT_RETRIES = 3;

/**
 * Writes the merge patch with its resourceVersion precondition. On a conflict it is sent again
 * only when generation and annotations, what the decision read, are unchanged.
 */
async function writePatch(client: KubeClient, read0: KubeObject, patch: Record<string, unknown>): Promise<void> {
  const name = read0.metadata.name ?? '';
  const ref = { ...CE, name };
  let current = read0;
  for (let attempt = 0; ; attempt++) {
    const body = { ...patch, metadata: { ...(patch['metadata'] as object), resourceVersion: current.metadata.resourceVersion } };
    try {
      await client.patch(ref, body, 'merge', { fieldManager: 'olmv1' });
      return;
    } catch (e) {
      if (!isConflict(e)) throw new Error(`patching ClusterExtension ${JSON.stringify(name)}: ${errorMessage(e)}`, { cause: e });
    }
    current = await read(
      `reading ClusterExtension ${JSON.stringify(name)}`,
      () => client.get(ref),
      `ClusterExtension ${JSON.stringify(name)} was deleted`,
    );
    const edited =
      current.metadata.generation !== read0.metadata.generation ||
      JSON.stringify(current.metadata.annotations ?? {}) !== JSON.stringify(read0.metadata.annotations ?? {}) ||
      current.metadata.deletionTimestamp !== undefined;
    if (edited || attempt + 1 >= CONFLICT_RETRIES) {
      throw refused(
        `ClusterExtension ${JSON.stringify(name)} changed while the rollback ran (it was read at resourceVersion ${read0.metadata.resourceVersion ?? ''}); nothing was written. Run the rollback again.`,
      );
    }
  }
}

/** Runs a read; a NotFound is the refusal `notFound` when given; any other failure rejects naming `what`. */
async function read<T>(what: string, get: () => Promise<T>, notFound?: string): Promise<T> {
  try {
    return await get();
  } catch (e) {
    if (notFound !== undefined && isNotFound(e)) throw refused(notFound);
    throw new Error(`${what}: ${errorMessage(e)}`, { cause: e });
  }
}
