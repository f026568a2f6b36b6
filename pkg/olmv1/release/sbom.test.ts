import { describe, expect, it } from 'vitest';
import { imageNpmPackages, parseDpkgStatus, renderSbom } from './sbom.ts';

const lock = JSON.stringify({
  name: 'olmv1',
  version: '0.1.0',
  lockfileVersion: 3,
  packages: {
    '': { name: 'olmv1', version: '0.1.0' },
    'node_modules/pino': { version: '9.0.0', license: 'MIT', resolved: 'https://r.example/pino-9.0.0.tgz' },
    'node_modules/@scope/lib': { version: '1.0.0', license: 'ISC' },
    'node_modules/vitest': { version: '4.0.0', dev: true },
    'node_modules/fsevents': { version: '2.3.3', optional: true, os: ['darwin'] },
    'node_modules/linux-only': { version: '1.0.0', optional: true, os: ['linux'], cpu: ['x64'] },
    'node_modules/pino/node_modules/sonic-boom': { version: '4.0.0' },
  },
});
const imageRef = `r.example/olmv1/olmv1@sha256:${'d'.repeat(64)}`;

describe('imageNpmPackages', () => {
  it('holds what npm ci --omit=dev installs on linux/x64: no dev, no other platform, nested ones by name', () => {
    expect(imageNpmPackages(lock).map((p) => `${p.name}@${p.version}`)).toEqual([
      '@scope/lib@1.0.0',
      'linux-only@1.0.0',
      'pino@9.0.0',
      'sonic-boom@4.0.0',
    ]);
  });
});

describe('renderSbom', () => {
  const input = {
    version: 'v1.2.3',
    imageRef,
    packageLock: lock,
    debianPackages: [{ name: 'libc6', version: '2.36-9' }],
    created: '2026-11-28T00:00:00Z',
  };
  const doc = JSON.parse(renderSbom(input)) as {
    spdxVersion: string;
    documentDescribes: string[];
    packages: Array<{ SPDXID: string; name: string; externalRefs: Array<{ referenceLocator: string }>; checksums?: unknown }>;
    relationships: unknown[];
  };

  it('describes the image by digest, containing the npm and Debian packages with purls', () => {
    expect(doc.spdxVersion).toBe('SPDX-2.3');
    expect(doc.documentDescribes).toEqual(['SPDXRef-image']);
    expect(doc.packages[0]?.checksums).toEqual([{ algorithm: 'SHA256', checksumValue: 'd'.repeat(64) }]);
    const purls = doc.packages.slice(1).map((p) => p.externalRefs[0]?.referenceLocator);
    expect(purls).toEqual([
      'pkg:npm/%40scope/lib@1.0.0',
      'pkg:npm/linux-only@1.0.0',
      'pkg:npm/pino@9.0.0',
      'pkg:npm/sonic-boom@4.0.0',
      'pkg:deb/debian/libc6@2.36-9',
    ]);
    expect(doc.relationships).toHaveLength(5);
    expect(new Set(doc.packages.map((p) => p.SPDXID)).size).toBe(doc.packages.length);
  });

  it('is the same bytes for the same inputs, and refuses an image that is not by digest', () => {
    expect(renderSbom(input)).toBe(renderSbom(input));
    expect(() => renderSbom({ ...input, imageRef: 'r.example/olmv1:v1' })).toThrow(/digest/);
  });
});

describe('parseDpkgStatus', () => {
  it('lists the installed packages, not the removed ones', () => {
    const status =
      'Package: libc6\nStatus: install ok installed\nVersion: 2.36-9\n\nPackage: gone\nStatus: deinstall ok config-files\nVersion: 1\n\nPackage: base-files\nStatus: install ok installed\nVersion: 12.4\n';
    expect(parseDpkgStatus(status)).toEqual([
      { name: 'base-files', version: '12.4' },
      { name: 'libc6', version: '2.36-9' },
    ]);
  });
});
