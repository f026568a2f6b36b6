/**
 * The release manifest: config/ of the released revision with the config/cert-manager component
 * (cert-manager issues the serving certificates and injects the webhook's CA, as upstream's
 * release has it) and the project image by digest, rendered by kustomize into one YAML file. No
 * `--insecure-registry` and no default installer: what a platform team applies is config/ as
 * documented. Refused when any image of the result is not pinned by digest.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderOverlay } from '../in-cluster/index.ts';
import { unpinnedImages } from './pin.ts';

/** What {@link renderReleaseManifest} needs; the I/O is injected. */
interface ReleaseManifestInput {
  /** The pushed project image, `<registry>/<repository>@sha256:<hex>`. */
  imageRef: string;
  /** Extracts config/ of the released revision into `dir/config` (e.g. git archive | tar -x). */
  extractConfig: (dir: string) => Promise<void>;
  /** `kubectl kustomize <dir>`: the rendered YAML. */
  kustomize: (dir: string) => Promise<string>;
}

/** The release manifest's YAML text; throws when an image of it is not pinned by digest. */
export async function renderReleaseManifest(input: ReleaseManifestInput): Promise<string> {
  const work = await mkdtemp(join(tmpdir(), 'olmv1-release-'));
  try {
    await input.extractConfig(work);
    const overlay = join(work, 'overlay');
    await mkdir(overlay);
    await writeFile(
      join(overlay, 'kustomization.yaml'),
      renderOverlay({ base: '../config', imageRef: input.imageRef, insecureRegistries: [], components: ['../config/cert-manager'] }),
    );
    const yaml = await input.kustomize(overlay);
    const unpinned = unpinnedImages(yaml);
    if (unpinned.length > 0) throw new Error(`the release manifest has images not pinned by digest: ${unpinned.join(', ')}`);
    return yaml;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
