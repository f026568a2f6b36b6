import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_OPERATOR_UID, exampleOperatorImage, serviceCaStandInImage } from './static-images.ts';

const sha256 = (b: Buffer): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;

/** name -> { mode, uid, data } of a plain ustar stream (what the image writer emits). */
function readTar(tar: Buffer): Map<string, { mode: number; uid: number; type: string; data: Buffer }> {
  const out = new Map<string, { mode: number; uid: number; type: string; data: Buffer }>();
  for (let off = 0; off + 512 <= tar.length;) {
    const header = tar.subarray(off, off + 512);
    if (header.every((b) => b === 0)) break;
    const field = (start: number, len: number): string => header.toString('latin1', start, start + len).replace(/\0.*$/s, '');
    const size = parseInt(field(124, 12), 8);
    const name = field(0, 100);
    out.set(name, {
      mode: parseInt(field(100, 8), 8),
      uid: parseInt(field(108, 8), 8),
      type: field(156, 1),
      data: tar.subarray(off + 512, off + 512 + size),
    });
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

describe('the example operator image writer', () => {
  const binary = Buffer.from('\x7fELF not really a binary, but bytes to pack');
  const image = exampleOperatorImage(binary, '1.0.0');

  it('writes a manifest whose digests are those of its config and layer', () => {
    const manifest = JSON.parse(image.manifest.toString()) as {
      mediaType: string;
      config: { digest: string; size: number; mediaType: string };
      layers: Array<{ digest: string; size: number; mediaType: string }>;
    };
    expect(image.digest).toBe(sha256(image.manifest));
    expect(manifest.mediaType).toBe('application/vnd.oci.image.manifest.v1+json');
    expect(manifest.config).toEqual({
      mediaType: 'application/vnd.oci.image.config.v1+json',
      digest: sha256(image.config.data),
      size: image.config.data.length,
    });
    expect(manifest.layers).toHaveLength(1);
    const layer = image.layers[0]!;
    expect(manifest.layers[0]).toEqual({
      mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip',
      digest: sha256(layer.data),
      size: layer.data.length,
    });
    const config = JSON.parse(image.config.data.toString()) as { rootfs: { diff_ids: string[] } };
    expect(config.rootfs.diff_ids).toEqual([sha256(gunzipSync(layer.data))]);
  });

  it('runs the binary as a numeric non-root user, without a shell', () => {
    const config = JSON.parse(image.config.data.toString()) as { os: string; architecture: string; config: Record<string, unknown> };
    expect(config.os).toBe('linux');
    expect(config.config).toEqual({
      User: `${EXAMPLE_OPERATOR_UID}:${EXAMPLE_OPERATOR_UID}`,
      Entrypoint: ['/example-operator'],
      ExposedPorts: { '8080/tcp': {} },
      Labels: expect.objectContaining({ 'org.opencontainers.image.version': '1.0.0' }),
    });
  });

  it('holds the binary (executable, owned by root) and a passwd entry for its user, and nothing else', () => {
    const files = readTar(gunzipSync(image.layers[0]!.data));
    expect([...files.keys()]).toEqual(['etc/', 'etc/group', 'etc/passwd', 'example-operator']);
    expect(files.get('example-operator')).toMatchObject({ mode: 0o755, uid: 0, data: binary });
    expect(files.get('etc/passwd')?.data.toString()).toContain(`example-operator:x:${EXAMPLE_OPERATOR_UID}:${EXAMPLE_OPERATOR_UID}:`);
    expect(files.get('etc/group')?.data.toString()).toContain(`example-operator:x:${EXAMPLE_OPERATOR_UID}:`);
  });

  it('is deterministic and differs by version', () => {
    expect(exampleOperatorImage(binary, '1.0.0').digest).toBe(image.digest);
    expect(exampleOperatorImage(binary, '0.2.0').digest).not.toBe(image.digest);
  });
});

/** The names of a plain ustar stream's entries (what the image writer emits). */
function tarNames(tar: Buffer): string[] {
  const names: string[] = [];
  for (let off = 0; off + 512 <= tar.length;) {
    const header = tar.subarray(off, off + 512);
    if (header.every((b) => b === 0)) break;
    names.push(header.toString('latin1', 0, 100).replace(/\0.*$/s, ''));
    off += 512 + Math.ceil(parseInt(header.toString('latin1', 124, 136), 8) / 512) * 512;
  }
  return names;
}

describe('the service-CA stand-in image', () => {
  const binary = Buffer.from('\x7fELF bytes to pack');

  it('runs the binary as a numeric non-root user, without a shell, and holds nothing else', () => {
    const image = serviceCaStandInImage(binary);
    const config = JSON.parse(image.config.data.toString()) as { config: { User: string; Entrypoint: string[] } };
    expect(config.config).toMatchObject({ User: '65532:65532', Entrypoint: ['/service-ca-stand-in'] });
    expect(tarNames(gunzipSync(image.layers[0]!.data))).toEqual(['etc/', 'etc/group', 'etc/passwd', 'service-ca-stand-in']);
  });

  it('is deterministic', () => {
    expect(serviceCaStandInImage(binary).digest).toBe(serviceCaStandInImage(binary).digest);
    expect(serviceCaStandInImage(Buffer.from('other')).digest).not.toBe(serviceCaStandInImage(binary).digest);
  });
});
