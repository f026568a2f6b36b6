/**
 * The image upstream's scenarios run (`busybox:1.36`, i.e. docker.io/library/busybox:1.36: the
 * Deployment of every bundle its step "a catalog ... with packages" builds, the Pods of
 * revision.feature), which no public registry serves here. A stand-in from Debian's
 * busybox-static: /bin/busybox and a symlink per applet it lists (sh, mkdir, httpd, sleep: what
 * upstream's httpd script and Pods run), pushed to a local registry under the same repository and
 * tag, for the node to pull through a registry mirror of docker.io.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { buildImage, buildLayer, createImageClient, type BuiltImage } from '../../../pkg/shared/image/index.ts';

/** Where Debian's busybox-static puts its binary (installed by .ci/run). */
export const DEBIAN_BUSYBOX = '/bin/busybox';
/** upstream's image, split as a registry mirror of docker.io sees it. */
export const UPSTREAM_BUSYBOX_IMAGE = { registry: 'docker.io', repository: 'library/busybox', tag: '1.36' };

/** The stand-in image (pure): `binary` at bin/busybox and each of `applets` (paths such as usr/bin/env) linked to it. */
export function busyboxImage(binary: Buffer, applets: readonly string[]): BuiltImage {
  const dirs = new Set<string>(['bin', 'etc']);
  for (const applet of applets) {
    const parts = applet.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  const links = applets.filter((a) => a !== 'bin/busybox' && !a.includes('..') && !a.startsWith('/'));
  const layer = buildLayer([
    ...[...dirs].sort().map((path) => ({ path, type: 'dir' as const })),
    { path: 'tmp', type: 'dir', mode: 0o1777 },
    { path: 'etc/passwd', type: 'file', data: Buffer.from('root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/home:/bin/false\n') },
    { path: 'etc/group', type: 'file', data: Buffer.from('root:x:0:\nnobody:x:65534:\n') },
    { path: 'bin/busybox', type: 'file', data: binary, mode: 0o755 },
    ...links.map((path) => ({ path, type: 'symlink' as const, linkname: '/bin/busybox' })),
  ]);
  return buildImage({ layers: [layer], labels: { 'org.opencontainers.image.title': 'busybox stand-in' }, run: { Cmd: ['sh'] } });
}

/** Builds the stand-in from `binary` (Debian's) and pushes it to `registry` as UPSTREAM_BUSYBOX_IMAGE's repository and tag. */
export async function pushBusyboxStandIn(registry: string, binary = DEBIAN_BUSYBOX): Promise<string> {
  const { stdout } = await promisify(execFile)(binary, ['--list-full'], { encoding: 'utf8' });
  const image = busyboxImage(
    await readFile(binary),
    stdout.split('\n').filter((l) => l !== ''),
  );
  const { repository, tag } = UPSTREAM_BUSYBOX_IMAGE;
  const ref = `${registry}/${repository}:${tag}`;
  await createImageClient({ insecureRegistries: [registry] }).push(ref, image);
  return ref;
}
