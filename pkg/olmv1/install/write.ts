/**
 * The writing half of the install service: the objects of objects.ts, in order, each first
 * tried with a server-side dry run so that every refusal is reported before anything is written.
 * A re-run finishes an interrupted one: an object already there that carries both install labels
 * for the same extension is used as it is, or updated to what this run writes
 * (resume.ts); one without them is someone else's and refused, as a name already taken.
 */
import { errorMessage } from '../../shared/errors/index.ts';
import { isAlreadyExists, isForbidden, isNotFound, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import { describeObject } from './objects.ts';
import type { InstallEvent, WriteAction } from './ports.ts';
import { InstallRefused } from './refused.ts';
import { adoption } from './resume.ts';

/** The client install writes with, and where its progress goes. */
interface Client {
  client: Pick<KubeClient, 'create' | 'update' | 'get' | 'delete'>;
  onEvent?: ((event: InstallEvent) => void) | undefined;
}

/** What install does with one object: create it, use the one an earlier run left, or update that one. */
type Step = { action: 'create'; object: KubeObject } | { action: 'keep'; object: KubeObject } | { action: 'update'; object: KubeObject };

/**
 * Writes `objects` (objects.ts order) for the ClusterExtension `extension`: the first
 * one, the namespace, only when `createNamespace`. Each object is tried first (a dry-run create,
 * or for one an earlier run left, a dry-run update); with any refusal nothing more is written,
 * the namespace created is deleted again and an InstallRefused lists the refusals. A failure while
 * writing deletes what this run created (never what it found). Returns what was done with each object.
 * @throws InstallRefused naming what was refused and why.
 */
export async function writeInstall(
  kube: Client,
  extension: string,
  objects: readonly KubeObject[],
  createNamespace: boolean,
): Promise<{ action: WriteAction; object: KubeObject }[]> {
  const created: KubeObject[] = [];
  const written: { action: WriteAction; object: KubeObject }[] = [];
  const done = (action: WriteAction, object: KubeObject) => {
    written.push({ action, object });
    kube.onEvent?.({ type: 'object', action, object: describeObject(object), extension });
  };
  try {
    const [maybeNamespace] = objects;
    if (createNamespace && maybeNamespace !== undefined) {
      await create(kube, maybeNamespace);
      created.push(maybeNamespace);
      done('created', maybeNamespace);
    }
    const rest = createNamespace ? objects.slice(1) : objects;
    // Everything is tried first: all refusals are reported together, before anything else is written.
    const refusals: string[] = [];
    const steps: Step[] = [];
    for (const o of rest) {
      const step = await tryOne(kube, extension, o, rest);
      if (typeof step === 'string') refusals.push(step);
      else steps.push(step);
    }
    if (refusals.length > 0) {
      const forbidden = refusals.some((r) => r.includes(' is forbidden'));
      throw new InstallRefused(
        [
          `nothing installed: ${refusals.length} of the ${rest.length} objects would be refused:`,
          ...refusals.map((r) => `  ${r}`),
          ...(forbidden
            ? ['(you need the rights to create these objects, and to hold every permission the RBAC grants: ask a cluster admin, or run as one)']
            : []),
        ].join('\n'),
      );
    }
    for (const step of steps) {
      if (step.action === 'keep') {
        done('reused', step.object);
      } else if (step.action === 'update') {
        await update(kube, step.object);
        done('updated', step.object);
      } else {
        await create(kube, step.object);
        created.push(step.object);
        done('created', step.object);
      }
    }
  } catch (e) {
    await undo(kube, created, extension);
    throw e;
  }
  return written;
}

/** The dry run of `o`: what to do with it, or why it would be refused. */
async function tryOne(kube: Client, extension: string, o: KubeObject, objects: readonly KubeObject[]): Promise<Step | string> {
  try {
    await kube.client.create(o, { dryRun: true });
    return { action: 'create', object: o };
  } catch (e) {
    // A caller without the bind verb has a binding checked against its role, which a dry run
    // never created: that check is left to the real create, after the role.
    if (isNotFound(e) && o.kind.endsWith('RoleBinding') && bindsOwnRole(o, objects)) return { action: 'create', object: o };
    if (!isAlreadyExists(e)) return refusal(o, e);
    // Taken: by an earlier run of this install (both labels for this extension), or by someone else.
    let live: KubeObject;
    try {
      live = await kube.client.get(refOf(o));
    } catch {
      return refusal(o, e);
    }
    const found = adoption(o, live, extension);
    if (found.action === 'foreign' || found.action === 'differs') return refusal(o, e);
    if (found.action === 'keep') return { action: 'keep', object: live };
    try {
      await kube.client.update(found.object, { dryRun: true });
      return { action: 'update', object: found.object };
    } catch (u) {
      return updateRefusal(o, u);
    }
  }
}

function refOf(o: KubeObject): { apiVersion: string; kind: string; name: string; namespace?: string } {
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    name: o.metadata.name ?? '',
    ...(o.metadata.namespace === undefined ? {} : { namespace: o.metadata.namespace }),
  };
}

/** Why the API server refused to create `o`, as install reports it. */
function refusal(o: KubeObject, e: unknown): string {
  if (isAlreadyExists(e)) {
    const hint =
      o.kind === 'ClusterExtension'
        ? `: choose another --name, or "olmv1 uninstall ${o.metadata.name ?? ''}" first`
        : ': remove it, or choose another --name';
    return `${describeObject(o)} already exists${hint}`;
  }
  if (isForbidden(e)) return `you cannot create ${describeObject(o)}: ${errorMessage(e)}`;
  return `error creating ${describeObject(o)}: ${errorMessage(e)}`;
}

/** Why the API server refused to update `o`, one an earlier run left, to what this run writes. */
function updateRefusal(o: KubeObject, e: unknown): string {
  if (isForbidden(e)) return `you cannot update ${describeObject(o)}: ${errorMessage(e)}`;
  return `error updating ${describeObject(o)}: ${errorMessage(e)}`;
}

/** Creates `o`; a refusal becomes an InstallRefused saying what was refused and why. */
async function create(kube: Client, o: KubeObject): Promise<void> {
  try {
    await kube.client.create(o);
  } catch (e) {
    throw new InstallRefused(refusal(o, e));
  }
}

/** Updates `o` (at the resourceVersion it was read at); a refusal becomes an InstallRefused. */
async function update(kube: Client, o: KubeObject): Promise<void> {
  try {
    await kube.client.update(o);
  } catch (e) {
    throw new InstallRefused(updateRefusal(o, e));
  }
}

/** Whether the binding `o` refers to a role among `objects` (one this run creates). */
function bindsOwnRole(o: KubeObject, objects: readonly KubeObject[]): boolean {
  const ref = o['roleRef'] as { kind?: string; name?: string } | undefined;
  const ns = ref?.kind === 'Role' ? o.metadata.namespace : undefined;
  return objects.some((r) => r.kind === ref?.kind && r.metadata.name === ref.name && r.metadata.namespace === ns);
}

/** Deletes what this run created, newest first, after a failure; what cannot be deleted is named. */
async function undo(kube: Client, created: readonly KubeObject[], extension: string): Promise<void> {
  for (const o of [...created].reverse()) {
    try {
      await kube.client.delete(refOf(o));
      kube.onEvent?.({ type: 'object', action: 'removed', object: describeObject(o), extension });
    } catch (e) {
      if (!isNotFound(e)) kube.onEvent?.({ type: 'remove-failed', object: describeObject(o), error: errorMessage(e) });
    }
  }
}
