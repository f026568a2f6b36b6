/**
 * `olmv1 install PACKAGE -n NAMESPACE --tenant` (decision 0138): as a namespace's admin, the
 * request for PACKAGE in NAMESPACE (an Extension), judged by the cluster's ExtensionPolicies
 * and installed by operator-controller's tenant controller; then waits until it is Installed,
 * or refused (the rule broken and its message).
 */
import { EXTENSION } from '../../pkg/shared/api/index.ts';
import { isAlreadyExists, selfCanI, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { type CommandIO, EXIT, poll, type Clock } from './io.ts';
import type { InstallArgs } from './install-args.ts';
import { catalogSource, describeObject } from '../../pkg/olmv1/install/index.ts';
import { CommandError, formatObjects } from './render.ts';

/** The Extension `install --tenant` creates for `a`. */
export function tenantRequest(a: InstallArgs): KubeObject {
  const req = a.request;
  const { packageName, ...rest } = catalogSource(req);
  return {
    apiVersion: EXTENSION.apiVersion,
    kind: EXTENSION.kind,
    metadata: { name: req.name, namespace: req.namespace },
    spec: {
      source: { sourceType: 'Catalog', catalog: { packageName, ...rest } },
      ...(a.existingServiceAccount ? { serviceAccount: { name: req.serviceAccount } } : {}),
      ...(req.watchNamespace === undefined ? {} : { config: { configType: 'Inline', inline: { watchNamespace: req.watchNamespace } } }),
    },
  };
}

/** Where a tenant's request stands. */
type TenantState =
  | { state: 'installed'; bundle: string; version: string }
  | { state: 'refused'; rule: string; message: string }
  | { state: 'waiting'; progress: string };

interface Cond {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
}

/** The state of the Extension `obj` for its current generation. */
export function tenantState(obj: KubeObject): TenantState {
  const status = (obj['status'] ?? {}) as { conditions?: Cond[]; install?: { bundle?: { name?: string; version?: string } } };
  const generation = obj.metadata.generation;
  const find = (type: string) => (status.conditions ?? []).find((c) => c.type === type);
  const current = (c: Cond | undefined) => c !== undefined && (generation === undefined || c.observedGeneration === generation);
  const allowed = find('Allowed');
  if (current(allowed) && allowed?.status === 'False') return { state: 'refused', rule: allowed.reason ?? '', message: allowed.message ?? '' };
  const installed = find('Installed');
  const progressing = find('Progressing');
  if (current(installed) && installed?.status === 'True' && current(progressing) && progressing?.reason === 'Succeeded') {
    return { state: 'installed', bundle: status.install?.bundle?.name ?? '', version: status.install?.bundle?.version ?? '' };
  }
  const progress = !current(allowed) ? 'waiting for operator-controller' : `${progressing?.reason ?? ''}: ${progressing?.message ?? ''}`;
  return { state: 'waiting', progress };
}

/**
 * Whether `olmv1 install` without `--tenant` requests the install as a tenant: when the caller
 * may not create ClusterExtensions but may create Extensions in the namespace (a namespace's
 * admin under config/tenant-extensions), and gave no flag a request cannot carry. Says so on
 * stderr. False when the caller may create ClusterExtensions, or the reviews cannot be made.
 */
export async function requestsAsTenant(a: InstallArgs, kube: KubeContext, io: CommandIO): Promise<boolean> {
  const req = a.request;
  if (a.tenant) return true;
  if (req.updatePolicy !== undefined || req.crdUpgradeSafety !== undefined || a.certProvider !== undefined || a.withDependencies) return false;
  let answers: boolean[];
  try {
    answers = await selfCanI(kube.client, [
      { verb: 'create', group: 'olm.operatorframework.io', resource: 'clusterextensions' },
      { verb: 'create', group: 'olm.operatorframework.io', resource: 'extensions', namespace: req.namespace },
    ]);
  } catch {
    return false;
  }
  if (answers[0] === true || answers[1] !== true) return false;
  io.stderr.write(
    `you may not create ClusterExtensions but may request installs in namespace ${req.namespace}: requesting ${req.packageName} as a tenant (an Extension an ExtensionPolicy must allow; docs/tenants.md)\n`,
  );
  return true;
}

/** Runs `install --tenant` with `a` as the caller (no cluster rights needed). */
export async function installTenant(a: InstallArgs, kube: KubeContext, io: CommandIO, clock: Clock): Promise<void> {
  const obj = tenantRequest(a);
  if (a.dryRun) {
    io.stdout.write(formatObjects([obj], a.output ?? 'yaml'));
    io.stderr.write('dry run: nothing written (1 object)\n');
    return;
  }
  try {
    await kube.client.create(obj);
  } catch (err) {
    if (!isAlreadyExists(err)) throw new CommandError(`creating ${describeObject(obj)}: ${(err as Error).message}`, EXIT.failed);
    throw new CommandError(`${describeObject(obj)} exists already: change it with kubectl, or delete it first`, EXIT.failed);
  }
  io.stderr.write(`created ${describeObject(obj)}\n`);
  if (a.output !== undefined) io.stdout.write(formatObjects([obj], a.output));
  const ref = { apiVersion: EXTENSION.apiVersion, kind: EXTENSION.kind, name: a.request.name, namespace: a.request.namespace };
  if (!a.wait) return;
  const state = await poll(
    `waiting for Extension ${a.request.namespace}/${a.request.name}`,
    a.timeoutMs,
    async () => tenantState(await kube.client.get(ref)),
    (s) => (s.state === 'waiting' ? s.progress : undefined),
    io,
    clock,
  );
  if (state.state === 'refused') {
    throw new CommandError(`Extension ${a.request.namespace}/${a.request.name} is refused (${state.rule}): ${state.message}`, EXIT.failed);
  }
  if (state.state === 'waiting') {
    throw new CommandError(
      `Extension ${a.request.namespace}/${a.request.name} is not installed after ${Math.round(a.timeoutMs / 1000)} s: ${state.progress}`,
      EXIT.failed,
    );
  }
  if (a.output === undefined)
    io.stdout.write(`installed ${state.bundle} (${state.version}) for Extension ${a.request.namespace}/${a.request.name}\n`);
}
