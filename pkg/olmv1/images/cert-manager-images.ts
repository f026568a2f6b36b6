/**
 * cert-manager's images for the local node, written without Docker or buildah: each of its
 * three static binaries (pkg/olmv1/localstack's cert-manager recipe) in one layer beside an
 * `/etc/passwd` and `/etc/group` naming its non-root user (uid 1000, as upstream's images), and
 * pushed with the project's image client. The same binaries give the same digests.
 */
import { readFile } from 'node:fs/promises';
import { buildImage, buildLayer, createImageClient, type BuiltImage } from '../../shared/image/index.ts';
import type { CertManagerBinaries } from '../localstack/index.ts';

/** The user cert-manager runs as, as upstream's images do. */
const CERT_MANAGER_UID = 1000;

/** The three components; each image's repository is `cert-manager/<component>`. */
const COMPONENTS = ['controller', 'webhook', 'cainjector'] as const;
type CertManagerComponent = (typeof COMPONENTS)[number];

/** Digest references of the pushed images, by component. */
export type CertManagerImages = Record<CertManagerComponent, string>;

/**
 * The image of one component over its `binary`: the binary at `/app/cmd/<component>` (mode
 * 0755, owned by root), run as CERT_MANAGER_UID with no shell. Deterministic: mtimes are 0.
 */
function certManagerImage(component: CertManagerComponent, binary: Buffer, version: string): BuiltImage {
  const uid = CERT_MANAGER_UID;
  const passwd = `root:x:0:0:root:/root:/sbin/nologin\ncert-manager:x:${uid}:${uid}:cert-manager:/nonexistent:/sbin/nologin\n`;
  const group = `root:x:0:\ncert-manager:x:${uid}:\n`;
  const entrypoint = `/app/cmd/${component}`;
  const layer = buildLayer([
    { path: 'etc', type: 'dir' },
    { path: 'etc/group', type: 'file', data: Buffer.from(group) },
    { path: 'etc/passwd', type: 'file', data: Buffer.from(passwd) },
    { path: 'app', type: 'dir' },
    { path: 'app/cmd', type: 'dir' },
    { path: entrypoint.slice(1), type: 'file', data: binary, mode: 0o755 },
  ]);
  return buildImage({
    layers: [layer],
    labels: { 'org.opencontainers.image.title': `cert-manager-${component}`, 'org.opencontainers.image.version': version },
    run: { User: `${uid}:${uid}`, Entrypoint: [entrypoint] },
  });
}

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
      const image = certManagerImage(component, await readFile(binaries[component]), binaries.version);
      const digest = await client.push(`${registry}/cert-manager/${component}:${binaries.version}`, image);
      refs[component] = `${registry}/cert-manager/${component}@${digest}`;
    }
    return refs as CertManagerImages;
  } finally {
    client.close();
  }
}
