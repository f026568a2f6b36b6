/**
 * The node's sandbox ("pause") image, built here (no public registry is reachable): a static Go
 * program that sleeps until signalled, packed as a one-layer OCI image for containerd to import.
 */
import { arch } from 'node:os';
import { createHash } from 'node:crypto';
import { buildLayer } from '../../shared/image/index.ts';
import type { GoProgram } from './go-program.ts';

/** The sleeper every Pod sandbox runs (holds the Pod's namespaces open). */
export const PAUSE_PROGRAM: GoProgram = {
  name: 'pause',
  source: `// Command pause holds a Pod sandbox's namespaces open: it sleeps until SIGINT or SIGTERM.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
}
`,
};

/** GOARCH of this machine (image configs name the architecture as Go does). */
export function goArch(nodeArch: string = arch()): string {
  const map: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', s390x: 's390x', ppc64: 'ppc64le', riscv64: 'riscv64' };
  const goarch = map[nodeArch];
  if (goarch === undefined) throw new Error(`no Go architecture for ${nodeArch}`);
  return goarch;
}

function digestOf(data: Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/**
 * An OCI image layout archive (what `ctr images import` reads) of one image `name`: `binary` at
 * `/<file>` (mode 0755) as its entrypoint. Returns the archive and the manifest digest.
 */
export function ociArchiveOfBinary(options: { name: string; file: string; binary: Buffer; arch?: string }): { archive: Buffer; digest: string } {
  const layer = buildLayer([{ path: options.file, type: 'file', data: options.binary, mode: 0o755 }], { compression: 'gzip' });
  const config = Buffer.from(
    JSON.stringify({
      architecture: options.arch ?? goArch(),
      os: 'linux',
      config: { Entrypoint: [`/${options.file}`] },
      rootfs: { type: 'layers', diff_ids: [layer.diffId] },
    }),
  );
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: digestOf(config), size: config.length },
      layers: [{ mediaType: layer.mediaType, digest: layer.digest, size: layer.size }],
    }),
  );
  const digest = digestOf(manifest);
  const index = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      manifests: [
        {
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          digest,
          size: manifest.length,
          annotations: { 'io.containerd.image.name': options.name },
        },
      ],
    }),
  );
  const blob = (data: Buffer, d: string) => ({ path: `blobs/sha256/${d.slice('sha256:'.length)}`, type: 'file' as const, data });
  // The archive itself is an uncompressed tar of the layout, written by the same tar writer.
  const archive = buildLayer(
    [
      { path: 'oci-layout', type: 'file', data: Buffer.from('{"imageLayoutVersion":"1.0.0"}') },
      { path: 'index.json', type: 'file', data: index },
      { path: 'blobs', type: 'dir' },
      { path: 'blobs/sha256', type: 'dir' },
      blob(layer.data, layer.digest),
      blob(config, digestOf(config)),
      blob(manifest, digest),
    ],
    { compression: 'none' },
  ).data;
  return { archive, digest };
}
