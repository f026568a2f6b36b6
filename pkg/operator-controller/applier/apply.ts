/**
 * Server-side apply of a release's objects (decision 0003): one PATCH
 * `application/apply-patch+yaml` per object with operator-controller's field manager and
 * `force=true`, in the order of apply-order.ts, waiting for CRDs to be Established before
 * anything else is applied; and the server-side dry run of a whole release before its first
 * write. Deletion is in delete.ts.
 */
import { FIELD_MANAGER } from '../../shared/api/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import { isNoKindMatch, type KubeClient, type KubeObject, type NoKindMatchError } from '../../shared/kube/index.ts';
import type { ObjectSequence } from '../release/index.ts';
import { ApplyError, dryRunRefusal } from './apply-error.ts';
import { applyPhasePositions } from './apply-order.ts';
import { type CrdStatus, type EstablishOptions, waitEstablished } from './crd-establish.ts';
import { missingKindsRefusal } from './missing-kinds.ts';
import { describeObject, isCrd, objectIdentity } from './objects.ts';

/** Options of `applyObjects`. */
export interface ApplyObjectsOptions extends EstablishOptions {
  /** Called after each object is applied with the API server's answer, the object as stored (progress, the drift watches' record). */
  onApplied?: (obj: KubeObject, answer: KubeObject) => void;
  /** True for objects not to send (their live copy is already what an apply of them leaves). */
  skip?: (obj: KubeObject) => boolean;
}

/**
 * Applies `objects` one at a time in apply order; stops at the first refusal and throws
 * ApplyError `error applying <Kind ns/name>: <API server message>` (objects applied before it
 * stay, as upstream leaves a failed release's objects). Aborting `signal` stops between objects.
 * Each object is read from `objects` when it is applied: a manifest's lines (Manifest.sequence)
 * are parsed one at a time and never held all at once (decision 0098).
 */
export async function applyObjects(client: KubeClient, objects: ObjectSequence, options: ApplyObjectsOptions = {}): Promise<void> {
  const signal = options.signal;
  for (const [index, phase] of applyPhasePositions(objects).entries()) {
    // Only the CRDs' status is kept from the answers (the first reading of Established): an
    // answer is the whole object as stored, which for a large release adds up to its size.
    const crds: { crd: KubeObject; answer: CrdStatus }[] = [];
    for (const position of phase) {
      signal?.throwIfAborted();
      const obj = objects.at(position);
      if (obj === undefined || options.skip?.(obj) === true) continue;
      let answer: KubeObject & CrdStatus;
      try {
        answer = await client.apply<KubeObject & CrdStatus>(obj, { fieldManager: FIELD_MANAGER, force: true, signal });
      } catch (err) {
        throw new ApplyError(describeObject(obj), `error applying ${describeObject(obj)}: ${errorMessage(err)}`, err);
      }
      if (index === 0) crds.push({ crd: obj, answer: answer.status === undefined ? {} : { status: answer.status } });
      options.onApplied?.(obj, answer);
    }
    // A CRD not sent is as its last apply left it: established then (its apply waited).
    for (const { crd, answer } of crds) await waitEstablished(client, crd, answer, options);
  }
}

/**
 * Server-side dry run (`dryRun=All`) of every object in apply order, as the apply will send it:
 * schema, admission and immutable fields are refused before anything is written (kinds the
 * cluster does not serve were refused before, all together: refuseUnservedKinds). Throws
 * ApplyError with upstream's dry-run message for the first refusal (`failed to get release state
 * using server-side dry-run: <message>`, dryRunRefusal). Objects that cannot be checked before
 * the release's own objects exist are not sent (the apply checks them): custom resources of a
 * CRD of the release that the API server does not serve yet, objects in a Namespace of the
 * release that is absent, and bindings to a Role or ClusterRole of the release that is absent
 * (the API server's escalation check reads the role). `absent` holds the objectIdentity of the
 * release's objects that do not exist. Objects `unchanged` says the deployed revision applied as
 * they are were accepted then and are not sent again (an upgrade's dry run costs a request per
 * changed object only).
 */
export async function dryRunObjects(
  client: KubeClient,
  objects: ObjectSequence,
  absent: ReadonlySet<string>,
  signal?: AbortSignal,
  unchanged: (obj: KubeObject) => boolean = () => false,
): Promise<void> {
  const crdKinds = new Set<string>();
  const newNamespaces = new Set<string | undefined>();
  const newRoles = new Set<string>();
  const phases = applyPhasePositions(objects, (o) => {
    if (isCrd(o)) crdKinds.add(crdKindKey(o));
    if (o.apiVersion === 'v1' && o.kind === 'Namespace' && absent.has(objectIdentity(o))) newNamespaces.add(o.metadata.name);
    if (isRole(o) && absent.has(objectIdentity(o))) newRoles.add(roleKey(o));
  });
  // One object at a time, in apply order (see applyObjects).
  for (const position of phases.flat()) {
    const obj = objects.at(position);
    if (obj === undefined) continue;
    const ns = obj.metadata.namespace;
    if (ns !== undefined && newNamespaces.has(ns)) continue;
    if (isBinding(obj) && newRoles.has(roleRefKey(obj))) continue;
    if (unchanged(obj)) continue;
    try {
      await client.apply(obj, { fieldManager: FIELD_MANAGER, force: true, dryRun: true, ...(signal === undefined ? {} : { signal }) });
    } catch (err) {
      if (isNoKindMatch(err)) {
        if (crdKinds.has(`${groupOf(obj.apiVersion)}/${obj.kind}`)) continue;
        // Served when mapped a moment ago: its CRD went away since.
        const missing = { name: obj.metadata.name ?? '', namespace: obj.metadata.namespace ?? '', reason: err.message };
        throw missingKindsRefusal(describeObject(obj), [missing], err);
      }
      throw dryRunRefusal(describeObject(obj), err);
    }
  }
}

/** What the missing-kind check keeps of an object. */
interface MappedObject {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
  /** describeObject of it. */
  object: string;
}

/**
 * Maps each kind of `objects` once, as upstream's Helm dry run builds every object before
 * anything else (install, upgrade and the unchanged release of every reconcile alike), and
 * throws upstream's refusal listing, in manifest order, every object whose kind the cluster does
 * not serve (missing-kinds.ts), but custom resources of the release's own CRDs. Nothing is sent.
 * Other discovery failures are left to the requests that follow, which meet them again.
 */
export async function refuseUnservedKinds(client: KubeClient, objects: ObjectSequence, signal?: AbortSignal): Promise<void> {
  const crdKinds = new Set<string>();
  // Each object's kind, name and namespace in manifest order (not the objects: decision 0098).
  const mapped: MappedObject[] = [];
  for (let i = 0; i < objects.length; i++) {
    const o = objects.at(i);
    if (o === undefined) continue;
    if (isCrd(o)) crdKinds.add(crdKindKey(o));
    mapped.push({
      apiVersion: o.apiVersion,
      kind: o.kind,
      name: o.metadata.name ?? '',
      namespace: o.metadata.namespace ?? '',
      object: describeObject(o),
    });
  }
  const unserved = new Map<string, NoKindMatchError>();
  for (const [key, [o]] of Map.groupBy(mapped, (m) => `${m.apiVersion}/${m.kind}`)) {
    if (o === undefined || crdKinds.has(`${groupOf(o.apiVersion)}/${o.kind}`)) continue;
    try {
      await client.resourceFor({ apiVersion: o.apiVersion, kind: o.kind }, signal);
    } catch (err) {
      if (isNoKindMatch(err)) unserved.set(key, err);
    }
  }
  const missing = mapped.filter((o) => unserved.has(`${o.apiVersion}/${o.kind}`));
  const first = missing[0];
  if (first === undefined) return;
  const reasons = missing.map((o) => ({ name: o.name, namespace: o.namespace, reason: unserved.get(`${o.apiVersion}/${o.kind}`)?.message ?? '' }));
  throw missingKindsRefusal(first.object, reasons, unserved.get(`${first.apiVersion}/${first.kind}`));
}

const RBAC_API = 'rbac.authorization.k8s.io/';

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

function crdKindKey(crd: KubeObject): string {
  const spec = (crd as { spec?: { group?: string; names?: { kind?: string } } }).spec;
  return `${spec?.group ?? ''}/${spec?.names?.kind ?? ''}`;
}

function isRole(obj: KubeObject): boolean {
  return obj.apiVersion.startsWith(RBAC_API) && (obj.kind === 'Role' || obj.kind === 'ClusterRole');
}

function isBinding(obj: KubeObject): boolean {
  return obj.apiVersion.startsWith(RBAC_API) && (obj.kind === 'RoleBinding' || obj.kind === 'ClusterRoleBinding');
}

function roleKey(role: KubeObject): string {
  return `${role.kind}/${role.kind === 'Role' ? (role.metadata.namespace ?? '') : ''}/${role.metadata.name ?? ''}`;
}

function roleRefKey(binding: KubeObject): string {
  const ref = (binding as { roleRef?: { kind?: string; name?: string } }).roleRef;
  const kind = ref?.kind ?? '';
  return `${kind}/${kind === 'Role' ? (binding.metadata.namespace ?? '') : ''}/${ref?.name ?? ''}`;
}
