/**
 * `olmv1 uninstall`'s service, for the command and the console: deletes the ClusterExtension,
 * waits until operator-controller has uninstalled it and it is gone, then deletes only what
 * `olmv1 install` created for it (both install labels) unless kept; without the ClusterExtension
 * (an install interrupted before writing it), those objects alone. Opted in (decision 0119), the
 * CustomResourceDefinitions the extension's revisions name or its owner labels mark go too, with
 * their custom resources, unless another extension owns, includes or requires one (refused,
 * nothing deleted). Its revisions are read through the one revision reader
 * (pkg/operator-controller/revisions), so both runtimes' extensions are seen. Results and
 * refusals are values in the command's words; progress is told through `report`.
 */
import { CLUSTER_EXTENSION } from '../../shared/api/index.ts';
import { err, errorMessage, ok, type Result } from '../../shared/errors/index.ts';
import { isNotFound, type KubeObject } from '../../shared/kube/index.ts';
import { createRevisionReader } from '../../operator-controller/revisions/index.ts';
import { previewCrdDeletion, previewSummary, type DeletionPreview } from '../crd-deletion/index.ts';
import { crdRefusal, deleteCrds } from './crds.ts';
import { deleteInstallerObjects, describeInstallerObject, listInstallerObjects } from './installer.ts';
import type { UninstallEvent, UninstallOutcome, UninstallPorts, UninstallRequest, UninstallSummary } from './types.ts';
import { pollUntilDone } from '../../shared/poll/index.ts';

type Outcome = UninstallOutcome;
const fail = (message: string, preview?: DeletionPreview): Outcome => err(preview === undefined ? { message } : { message, preview });

/** The CRD deletion's preview (the kubeconfig's user reads it); a failure is the API server's message. */
async function readCrdPreview(
  ports: UninstallPorts,
  req: Pick<UninstallRequest, 'extension' | 'systemNamespace'>,
): Promise<Result<DeletionPreview, string>> {
  try {
    const preview = await previewCrdDeletion(
      {
        client: ports.client,
        revisions: createRevisionReader({ client: ports.client, namespace: req.systemNamespace }),
        ...(ports.catalogProperties === undefined ? {} : { catalogProperties: ports.catalogProperties }),
      },
      req.extension,
    );
    return ok(preview);
  } catch (e) {
    return err(`error reading what --delete-crds would delete (nothing was deleted): ${errorMessage(e)}`);
  }
}

/**
 * What uninstalling `req.extension` deletes, reading only: whether its ClusterExtension is there,
 * the installer's objects (unless kept), and with deleteCrds the CRDs and custom resources, or
 * their refusal (failure.preview holds the preview refused).
 */
export async function previewUninstall(ports: UninstallPorts, req: Omit<UninstallRequest, 'timeoutMs'>): Promise<Outcome> {
  let crds: DeletionPreview | undefined;
  if (req.deleteCrds) {
    const read = await readCrdPreview(ports, req);
    if (!read.ok) return fail(read.error);
    crds = read.value;
    for (const u of crds.unchecked) ports.report?.({ type: 'unchecked', extension: u });
    const refused = crdRefusal(crds);
    if (refused !== undefined) return fail(refused, crds);
  }
  const exists = await ports.client.get({ ...CLUSTER_EXTENSION, name: req.extension }).then(
    () => true,
    (e: unknown) => {
      if (isNotFound(e)) return false;
      throw new Error(`reading ClusterExtension ${req.extension}`, { cause: e });
    },
  );
  const installer = req.keepRbac
    ? []
    : (await listInstallerObjects(ports.client, ports.installerSelector(req.extension))).map(describeInstallerObject);
  return ok({
    extension: req.extension,
    clusterExtension: exists,
    installerObjects: installer,
    installerKept: req.keepRbac,
    ...(crds === undefined ? {} : { crds }),
  });
}

/** Uninstalls `req.extension` (see the file comment); what was deleted, or why not everything was. */
export async function uninstallExtension(ports: UninstallPorts, req: UninstallRequest): Promise<Outcome> {
  const report = (e: UninstallEvent): void => ports.report?.(e);
  if (!req.deleteCrds) return uninstallOnly(ports, req, report, false);
  const before = await readCrdPreview(ports, req);
  if (!before.ok) return fail(before.error);
  for (const u of before.value.unchecked) report({ type: 'unchecked', extension: u });
  const refused = crdRefusal(before.value);
  if (refused !== undefined) return fail(refused, before.value);
  const done = await uninstallOnly(ports, req, report, before.value.crds.length > 0);
  if (!done.ok) return done;
  // The CRDs as they are once the extension is gone: those are deleted, and summarized.
  const now = await readCrdPreview(ports, req);
  if (!now.ok) return fail(now.error);
  const keptNow = crdRefusal(now.value);
  if (keptNow !== undefined)
    return fail(`ClusterExtension ${req.extension} is uninstalled; its CustomResourceDefinitions are kept:\n${keptNow}`, now.value);
  if (JSON.stringify(previewSummary(now.value)) !== JSON.stringify(previewSummary(before.value))) report({ type: 'crdsChanged' });
  const deleted = await deleteCrds(ports.client, now.value, req.timeoutMs, ports, report);
  if (!deleted.ok) return fail(deleted.error);
  return ok({ ...done.value, crds: now.value });
}

/** The uninstall without CRDs; `crdsLeft` when CRDs of an earlier uninstall remain to delete without the ClusterExtension. */
async function uninstallOnly(ports: UninstallPorts, req: UninstallRequest, report: (e: UninstallEvent) => void, crdsLeft: boolean): Promise<Outcome> {
  const { client } = ports;
  const ref = { ...CLUSTER_EXTENSION, name: req.extension };
  try {
    await client.delete(ref);
  } catch (e) {
    if (isNotFound(e)) return leftovers(ports, req, report, crdsLeft);
    return fail(`error deleting ClusterExtension ${JSON.stringify(req.extension)}: ${errorMessage(e)}`);
  }
  report({ type: 'deleting', extension: req.extension });
  let readFailure: string | undefined;
  const look = () =>
    client.get(ref).catch((e: unknown) => {
      if (!isNotFound(e)) readFailure = `error reading ClusterExtension ${JSON.stringify(req.extension)}: ${errorMessage(e)}`;
      return undefined;
    });
  const left = await pollUntilDone(
    req.timeoutMs,
    look,
    (o) => o && conditionsText(o),
    (state) => report({ type: 'waiting', for: 'extension', extension: req.extension, state }),
    ports,
  );
  if (readFailure !== undefined) return fail(readFailure);
  if (left !== undefined) {
    return fail(
      `ClusterExtension ${req.extension} is still there after ${Math.round(req.timeoutMs / 1000)} s: ${conditionsText(left)}\n` +
        `(its RBAC is kept: operator-controller needs it to finish; see "kubectl describe clusterextension ${req.extension}")`,
    );
  }
  report({ type: 'deleted', object: `ClusterExtension ${req.extension}` });
  const summary = { extension: req.extension, clusterExtension: true, installerKept: req.keepRbac };
  if (req.keepRbac) {
    report({ type: 'installerKept', selector: ports.installerSelector(req.extension) });
    return ok({ ...summary, installerObjects: [] });
  }
  const found = await listInstallerObjects(client, ports.installerSelector(req.extension));
  if (found.length === 0) report({ type: 'noInstallerObjects', extension: req.extension });
  return deleteAll(ports, found, summary, report);
}

/**
 * Without a ClusterExtension: what an install interrupted before writing it left (the objects
 * labelled for it) is deleted, unless kept; with none (and no CRDs left), it is not found.
 */
async function leftovers(ports: UninstallPorts, req: UninstallRequest, report: (e: UninstallEvent) => void, crdsLeft: boolean): Promise<Outcome> {
  const notFound = `ClusterExtension ${JSON.stringify(req.extension)} not found`;
  const summary = { extension: req.extension, clusterExtension: false, installerKept: req.keepRbac };
  if (crdsLeft) report({ type: 'leftovers', extension: req.extension, what: 'crds' });
  if (req.keepRbac) return crdsLeft ? ok({ ...summary, installerObjects: [] }) : fail(notFound);
  let found;
  try {
    found = await listInstallerObjects(ports.client, ports.installerSelector(req.extension));
  } catch (e) {
    return fail(`${notFound}\n(could not look for what "olmv1 install" created for it: ${errorMessage(e)})`);
  }
  if (found.length === 0) return crdsLeft ? ok({ ...summary, installerObjects: [] }) : fail(notFound);
  report({ type: 'leftovers', extension: req.extension, what: 'installer' });
  return deleteAll(ports, found, summary, report);
}

/** Deletes the installer's objects found, each reported; what could not be deleted fails, named. */
async function deleteAll(
  ports: UninstallPorts,
  found: Parameters<typeof deleteInstallerObjects>[1],
  summary: Omit<UninstallSummary, 'installerObjects'>,
  report: (e: UninstallEvent) => void,
): Promise<Outcome> {
  const deleted: string[] = [];
  const failures = await deleteInstallerObjects(ports.client, found, (shown) => {
    deleted.push(shown);
    report({ type: 'deleted', object: shown });
  });
  if (failures.length > 0) return fail(`could not delete:\n${failures.map((f) => `  ${f}`).join('\n')}`);
  return ok({ ...summary, installerObjects: deleted });
}

/** The extension's conditions in one line (`finalizers ...; Progressing Reason: message`). */
function conditionsText(obj: KubeObject): string {
  const conditions =
    (obj.status as { conditions?: { type?: string; status?: string; reason?: string; message?: string }[] } | undefined)?.conditions ?? [];
  const progressing = conditions.find((c) => c.type === 'Progressing');
  const finalizers = obj.metadata.finalizers ?? [];
  const parts = [`finalizers ${finalizers.length === 0 ? 'none' : finalizers.join(', ')}`];
  if (progressing !== undefined) parts.push(`Progressing ${progressing.reason ?? ''}: ${progressing.message ?? ''}`);
  return parts.join('; ');
}
