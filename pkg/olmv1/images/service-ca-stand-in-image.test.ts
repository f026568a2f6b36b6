import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { serviceCaStandInImage } from './service-ca-stand-in-image.ts';

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
