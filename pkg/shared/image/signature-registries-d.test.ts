import { describe, expect, it } from 'vitest';
import { parseNormalized } from './reference.ts';
import { lookasideFor, lookasideUrl, parseRegistriesD, useSigstoreAttachmentsFor } from './signature-registries-d.ts';

describe('registries.d', () => {
  it('picks the most specific docker scope, else default-docker; sigstore is the legacy lookaside', () => {
    const r = parseRegistriesD([
      ['/d/a.yaml', 'default-docker:\n  lookaside: file:///var/sigs\n'],
      [
        '/d/b.yaml',
        'docker:\n  quay.io/ns:\n    sigstore: https://sigs.example.com/ns\n  quay.io/ns/app:\n    lookaside: https://app.example.com\n    use-sigstore-attachments: true\n',
      ],
    ]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(lookasideFor(r.value, parseNormalized('quay.io/ns/app:v1'))).toBe('https://app.example.com');
    expect(useSigstoreAttachmentsFor(r.value, parseNormalized('quay.io/ns/app:v1'))).toBe(true);
    expect(lookasideFor(r.value, parseNormalized('quay.io/ns/other:v1'))).toBe('https://sigs.example.com/ns');
    expect(useSigstoreAttachmentsFor(r.value, parseNormalized('quay.io/ns/other:v1'))).toBe(false);
    expect(lookasideFor(r.value, parseNormalized('docker.io/x/y:v1'))).toBe('file:///var/sigs');
  });

  it('looks each setting up on its own: a scope setting only use-sigstore-attachments keeps the wider lookaside', () => {
    const r = parseRegistriesD([
      ['/d/a.yaml', 'default-docker:\n  lookaside: file:///var/sigs\n  use-sigstore-attachments: true\n'],
      ['/d/b.yaml', 'docker:\n  quay.io/ns:\n    use-sigstore-attachments: false\n'],
    ]);
    if (!r.ok) throw new Error(r.error);
    expect(lookasideFor(r.value, parseNormalized('quay.io/ns/app:v1'))).toBe('file:///var/sigs');
    expect(useSigstoreAttachmentsFor(r.value, parseNormalized('quay.io/ns/app:v1'))).toBe(false);
    expect(useSigstoreAttachmentsFor(r.value, parseNormalized('quay.io/other/app:v1'))).toBe(true);
  });

  it.each([
    [
      'default-docker twice',
      [
        ['/d/a.yaml', 'default-docker: {}\n'],
        ['/d/b.yaml', 'default-docker: {}\n'],
      ],
      /"default-docker" defined both in "\/d\/a.yaml" and "\/d\/b.yaml"/,
    ],
    [
      'a scope twice',
      [
        ['/d/a.yaml', 'docker:\n  a.io: {}\n'],
        ['/d/b.yaml', 'docker:\n  a.io: {}\n'],
      ],
      /"a.io" defined more than once/,
    ],
    ['an unknown key', [['/d/a.yaml', 'default-docker:\n  lookasid: x\n']], /unknown key "lookasid"/],
    ['malformed YAML', [['/d/a.yaml', 'docker: [\n']], /^reading registries.d file "\/d\/a.yaml": /],
  ] as const)('refuses %s', (_, files, message) => {
    const r = parseRegistriesD(files);
    expect(r.ok ? 'parsed' : r.error).toMatch(message);
  });

  it('builds containers/image lookaside URLs: repository path without the host, digest as algo=hex', () => {
    const ref = parseNormalized('quay.io/ns/app:v1');
    expect(lookasideUrl('file:///var/sigs/', ref, `sha256:${'a'.repeat(64)}`, 2).href).toBe(
      `file:///var/sigs/ns/app@sha256=${'a'.repeat(64)}/signature-2`,
    );
    expect(lookasideUrl('https://s.example.com/base', ref, `sha256:${'a'.repeat(64)}`, 1).href).toBe(
      `https://s.example.com/base/ns/app@sha256=${'a'.repeat(64)}/signature-1`,
    );
  });
});
