/**
 * What `olmv1 up` does on the cluster itself: installs the cluster-wide configuration both
 * components need (config/crd, config/admission, the system namespace), creates the example
 * ClusterCatalog from config/samples, and waits until catalogd serves it.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadAll } from 'js-yaml';
import { type KubeClient, type KubeObject, LAST_APPLIED_ANNOTATION, isAlreadyExists, isNotFound } from '../../pkg/shared/kube/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';

/** Field manager of everything `olmv1 up` applies. */
export const UP_FIELD_MANAGER = 'olmv1-up';

const CATALOG_TYPE = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog' } as const;
const CRD_TYPE = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;
/** The label the admission policy sets and ClusterExtension selectors match. */
const NAME_LABEL = 'olm.operatorframework.io/metadata.name';

/** Every YAML document of the `.yaml` files of `dir`, in file-name order. */
export async function readManifests(dir: string): Promise<KubeObject[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort();
  const out: KubeObject[] = [];
  for (const f of files) {
    for (const doc of loadAll(await readFile(join(dir, f), 'utf8'))) if (doc !== null && typeof doc === 'object') out.push(doc as KubeObject);
  }
  return out;
}

/**
 * Applies config/crd, config/crd/experimental and config/crd/tenant (waiting for Established;
 * the experimental ClusterObjectSet CRD lets the local stack run with BoxcutterRuntime=true, the
 * tenant CRDs with TenantExtensions=true, and each is unused without its gate), the system
 * namespace, then config/admission; a
 * cluster without MutatingAdmissionPolicy only gets a warning (`up` labels its catalog itself).
 */
export async function installOlmResources(
  client: KubeClient,
  repoRoot: string,
  systemNamespace: string,
  warn: (line: string) => void,
): Promise<void> {
  const isComponent = (o: KubeObject): boolean => o.apiVersion.startsWith('kustomize.config.k8s.io/');
  const crds = [
    ...(await readManifests(join(repoRoot, 'config/crd'))),
    ...(await readManifests(join(repoRoot, 'config/crd/experimental'))),
    ...(await readManifests(join(repoRoot, 'config/crd/tenant'))),
  ].filter((o) => !isComponent(o));
  for (const crd of crds) await client.apply(crd, { fieldManager: UP_FIELD_MANAGER, force: true });
  await waitFor('the OLM CRDs to be Established', 60_000, async () => {
    for (const crd of crds) {
      const live = await client.get({ ...CRD_TYPE, name: crd.metadata?.name ?? '' });
      const conds = (live.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? [];
      if (!conds.some((c) => c.type === 'Established' && c.status === 'True')) return false;
    }
    return true;
  });
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: systemNamespace } }).catch((err: unknown) => {
    if (!isAlreadyExists(err)) throw err;
  });
  // config/admission is a Kustomize component: its kustomization.yaml is no cluster object.
  const policy = (await readManifests(join(repoRoot, 'config/admission'))).filter((o) => !isComponent(o));
  for (const obj of policy) {
    try {
      await client.apply(obj, { fieldManager: UP_FIELD_MANAGER, force: true });
    } catch (err) {
      warn(
        `could not apply ${obj.kind} ${obj.metadata?.name ?? ''} (${errorMessage(err)}); ClusterCatalogs need the label ${NAME_LABEL}=<name> set by hand`,
      );
    }
  }
}

/**
 * Creates (or replaces) the ClusterCatalog `sample` with image `ref`, labelled with its name and
 * annotated as kubectl applies it, so a later `kubectl apply` of the sample is an ordinary update.
 */
export async function createCatalogFromSample(client: KubeClient, sample: KubeObject, ref: string): Promise<KubeObject> {
  const name = sample.metadata?.name ?? '';
  const spec = structuredClone(sample.spec ?? {}) as { source?: { image?: { ref?: string } } };
  if (spec.source?.image === undefined) throw new Error(`the ClusterCatalog sample ${name} has no spec.source.image`);
  spec.source.image.ref = ref;
  const applied = { ...sample, spec };
  const obj: KubeObject = {
    ...applied,
    metadata: {
      ...sample.metadata,
      name,
      labels: { ...sample.metadata?.labels, [NAME_LABEL]: name },
      annotations: { ...sample.metadata?.annotations, [LAST_APPLIED_ANNOTATION]: JSON.stringify(applied) },
    },
  };
  try {
    return await client.create(obj);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  await client.delete({ ...CATALOG_TYPE, name });
  await waitFor(`the old ClusterCatalog ${name} to be deleted`, 60_000, async () =>
    client.get({ ...CATALOG_TYPE, name }).then(
      () => false,
      (e: unknown) => (isNotFound(e) ? true : Promise.reject(e)),
    ),
  );
  return client.create(obj);
}

/** Waits until the ClusterCatalog `name` is Serving and returns its base URL; a timeout names its last conditions. */
export async function waitForServing(client: KubeClient, name: string, timeoutMs: number, signal: AbortSignal): Promise<string> {
  let last: unknown;
  let base = '';
  try {
    await waitFor(`ClusterCatalog ${name} to be Serving`, timeoutMs, async () => {
      signal.throwIfAborted();
      const cc = await client.get({ ...CATALOG_TYPE, name });
      const status = cc.status as { conditions?: Array<{ type: string; status: string }>; urls?: { base?: string } } | undefined;
      last = status?.conditions;
      base = status?.urls?.base ?? '';
      return base !== '' && (status?.conditions ?? []).some((c) => c.type === 'Serving' && c.status === 'True');
    });
  } catch (err) {
    if (signal.aborted) throw err;
    throw new Error(`${errorMessage(err)}; last conditions: ${JSON.stringify(last ?? null)}`, { cause: err });
  }
  return base;
}

async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (err) {
      if (err instanceof Error && err.name === 'AbortError') throw err;
      lastError = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`, { cause: lastError });
    await sleep(200);
  }
}
