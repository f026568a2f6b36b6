/**
 * cert-manager's images for the local node, written without Docker or buildah: each of its
 * three static binaries (pkg/olmv1/localstack's cert-manager recipe) in one layer beside an
 * `/etc/passwd` and `/etc/group` naming its non-root user (uid 1000, as upstream's images), and
 * pushed with the project's image client. The same binaries give the same digests.
 */
import { readFile } from 'node:fs/promises';
import { createImageClient } from '../../shared/image/index.ts';
import { exampleOperatorImage } from './example-operator-image.ts';
import type { CertManagerBinaries } from '../localstack/index.ts';

/** The user cert-manager runs as, as upstream's images do. */
const CERT_MANAGER_UID = 1000;

/** The three components; each image's repository is `cert-manager/<component>`. */
const COMPONENTS = ['controller', 'webhook', 'cainjector'] as const;
type CertManagerComponent = (typeof COMPONENTS)[number];

/** Digest references of the pushed images, by component. */
export type CertManagerImages = Record<CertManagerComponent, string>;

/**
 * Builds the three images from `binaries` and pushes them to `registry` (`host[:port]`) under
 * `cert-manager/<component>:<version>`; returns their digest references. Throws when a binary
 * cannot be read or a push is refused.
 */
export async function pushCertManagerImages(
  binaries: CertManagerBinaries,
  registry: string,
  insecureRegistries: readonly string[],
): Promise<CertManagerImages> {
  const client = createImageClient({ insecureRegistries });
  try {
    const refs: Partial<CertManagerImages> = {};
    for (const component of COMPONENTS) {
      // The binary at `/app/cmd/<component>`, run as CERT_MANAGER_UID with no shell.
      const program = { name: `cert-manager-${component}`, entrypoint: `/app/cmd/${component}`, user: 'cert-manager', uid: CERT_MANAGER_UID };
      const image = exampleOperatorImage(await readFile(binaries[component]), binaries.version, program);
      const digest = await client.push(`${registry}/cert-manager/${component}:${binaries.version}`, image);
      refs[component] = `${registry}/cert-manager/${component}@${digest}`;
    }
    return refs as CertManagerImages;
  } finally {
    client.close();
  }
}
