/**
 * The release manifest: config/ of the released revision with the config/cert-manager component
 * (cert-manager issues the serving certificates and injects the webhook's CA, as upstream's
 * release has it) and the project image by digest, rendered by kustomize into one YAML file. No
 * `--insecure-registry` and no default installer: what a platform team applies is config/ as
 * documented, but for one addition: both Deployments mount the ConfigMap REGISTRIES_CONF_CONFIGMAP
 * (optional, not in the manifest) as their registries.conf.d, so the cluster's registries.conf
 * drop-ins (install.sh's OLMV1_INSECURE_REGISTRIES, an administrator's mirrors) outlive a
 * re-apply. Refused when any image of the result is not pinned by digest. The ClusterObjectSet CRD
 * config/boxcutter adds is returned beside it, for install.sh's CRD check (decision 0154).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEPLOYMENTS, renderOverlay } from '../in-cluster/index.ts';
import { unpinnedImages } from './pin.ts';

/** The ConfigMap in the system namespace whose keys both components read as registries.conf.d drop-ins. */
export const REGISTRIES_CONF_CONFIGMAP = 'olmv1-registries-conf';

/** JSON patches of a Deployment: the optional ConfigMap mounted read-only at /etc/containers/registries.conf.d. */
const REGISTRIES_CONF_MOUNT = JSON.stringify([
  {
    op: 'add',
    path: '/spec/template/spec/volumes/-',
    value: { name: 'registries-conf', configMap: { name: REGISTRIES_CONF_CONFIGMAP, optional: true } },
  },
  {
    op: 'add',
    path: '/spec/template/spec/containers/0/volumeMounts/-',
    value: { name: 'registries-conf', mountPath: '/etc/containers/registries.conf.d', readOnly: true },
  },
]);

/** What {@link renderReleaseManifest} needs; the I/O is injected. */
interface ReleaseManifestInput {
  /** The pushed project image, `<registry>/<repository>@sha256:<hex>`. */
  imageRef: string;
  /** Extracts config/ of the released revision into `dir/config` (e.g. git archive | tar -x). */
  extractConfig: (dir: string) => Promise<void>;
  /** `kubectl kustomize <dir>`: the rendered YAML. */
  kustomize: (dir: string) => Promise<string>;
}

/** Where config/boxcutter takes the ClusterObjectSet CRD from, in config/. */
const BOXCUTTER_CRD = 'crd/experimental/olm.operatorframework.io_clusterobjectsets.yaml';

/**
 * The release manifest's YAML text, and the CRDs the BoxcutterRuntime overlay of the same
 * revision adds ('' when it has none); throws when an image of the manifest is not pinned by digest.
 */
export async function renderReleaseManifest(input: ReleaseManifestInput): Promise<{ manifest: string; overlayCrds: string }> {
  const work = await mkdtemp(join(tmpdir(), 'olmv1-release-'));
  try {
    await input.extractConfig(work);
    const overlay = join(work, 'overlay');
    await mkdir(overlay);
    const kustomization = JSON.parse(
      renderOverlay({ base: '../config', imageRef: input.imageRef, insecureRegistries: [], components: ['../config/cert-manager'] }),
    ) as { patches: object[] };
    kustomization.patches.push(...DEPLOYMENTS.map((name) => ({ target: { kind: 'Deployment', name }, patch: REGISTRIES_CONF_MOUNT })));
    await writeFile(join(overlay, 'kustomization.yaml'), JSON.stringify(kustomization, null, 2) + '\n');
    const yaml = await input.kustomize(overlay);
    const unpinned = unpinnedImages(yaml);
    if (unpinned.length > 0) throw new Error(`the release manifest has images not pinned by digest: ${unpinned.join(', ')}`);
    const overlayCrds = await readFile(join(work, 'config', BOXCUTTER_CRD), 'utf8').catch((e: unknown) => {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return '';
      throw e;
    });
    return { manifest: yaml, overlayCrds };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
