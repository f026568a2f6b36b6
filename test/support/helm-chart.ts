/**
 * The Helm chart (helm/olmv1) next to the Kustomize tree it mirrors (config/): render one with
 * `helm template`, build the other with `kubectl kustomize` of an overlay made for the same
 * choices, and bring both to one comparable form (parsed objects in a fixed order).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dump, loadAll } from 'js-yaml';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import { helmWith } from './helm.ts';

/** A path of this repository. */
export const repoPath = (p: string): string => fileURLToPath(new URL(`../../${p}`, import.meta.url));

export const CHART = repoPath('helm/olmv1');

/** The one annotation the chart adds to config/'s objects: its CRDs survive `helm uninstall`. */
export const KEEP = 'helm.sh/resource-policy';

/** Parses a multi-document YAML stream into its objects (empty documents dropped). */
export function parseObjects(yaml: string): KubeObject[] {
  return loadAll(yaml).filter((o): o is KubeObject => o !== null && typeof o === 'object');
}

/** `helm template` of the chart with values files and `--set` pairs; throws on a non-zero exit. */
export async function renderChart(kubeconfigPath: string, values: { files?: string[]; set?: string[] } = {}): Promise<KubeObject[]> {
  const args = ['template', 'olmv1', CHART];
  for (const f of values.files ?? []) args.push('-f', f);
  for (const s of values.set ?? []) args.push('--set', s);
  const run = await helmWith(kubeconfigPath, ...args);
  if (run.code !== 0) throw new Error(`helm ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return parseObjects(run.stdout);
}

/** What an overlay of config/ adds: components of config/ and the overlay's own fields. */
export interface Overlay {
  /** Directory names under config/ (`openshift`, `cert-manager`, `default-installer`). */
  components?: string[];
  /** Further kustomization.yaml fields (images, replicas, patches). */
  fields?: Record<string, unknown>;
}

/** `kubectl kustomize` of an overlay with `resources: [config/]` and the given additions. */
export async function kustomizeOverlay(kubectl: string, overlay: Overlay = {}): Promise<KubeObject[]> {
  const dir = await mkdtemp(join(tmpdir(), 'helm-chart-overlay-'));
  try {
    const kustomization = {
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      // Kustomize takes no absolute paths.
      resources: [relative(dir, repoPath('config'))],
      ...(overlay.components === undefined ? {} : { components: overlay.components.map((c) => relative(dir, repoPath(`config/${c}`))) }),
      ...overlay.fields,
    };
    await writeFile(join(dir, 'kustomization.yaml'), dump(kustomization));
    const out = await new Promise<string>((resolve, reject) => {
      execFile(kubectl, ['kustomize', dir], { maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
        err === null ? resolve(stdout) : reject(new Error(`kubectl kustomize: ${stderr}`, { cause: err })),
      );
    });
    return parseObjects(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `group/Kind namespace/name` of an object. */
export function objectKey(o: KubeObject): string {
  return `${o.apiVersion}/${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`;
}

/**
 * The objects sorted by objectKey, as plain data (what a YAML parser makes of them), with each
 * Deployment's volumes sorted by name: a list merged by name, whose order Kustomize's strategic
 * merge patches change (config/openshift moves ca-certs first) and the API server ignores.
 */
export function sorted(objects: readonly KubeObject[]): KubeObject[] {
  return [...objects]
    .sort((a, b) => objectKey(a).localeCompare(objectKey(b)))
    .map((o) => {
      const copy = JSON.parse(JSON.stringify(o)) as KubeObject & { spec?: { template?: { spec?: { volumes?: { name: string }[] } } } };
      if (copy.kind === 'Deployment') copy.spec?.template?.spec?.volumes?.sort((a, b) => a.name.localeCompare(b.name));
      return copy;
    });
}

/**
 * The chart's objects without what it adds on purpose: the keep policy on each CRD (which must
 * be there; the CRD's annotations are dropped when it was the only one).
 */
export function withoutChartAdditions(objects: readonly KubeObject[]): KubeObject[] {
  return sorted(objects).map((o) => {
    if (o.kind !== 'CustomResourceDefinition') return o;
    const annotations = { ...o.metadata.annotations };
    if (annotations[KEEP] !== 'keep') throw new Error(`${objectKey(o)} lacks ${KEEP}: keep`);
    delete annotations[KEEP];
    const { annotations: _dropped, ...metadata } = o.metadata;
    return { ...o, metadata: Object.keys(annotations).length === 0 ? metadata : { ...metadata, annotations } };
  });
}
