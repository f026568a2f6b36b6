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
      /"docker" namespace "a.io" defined both in "\/d\/a.yaml" and "\/d\/b.yaml"/,
    ],
    ['malformed YAML', [['/d/a.yaml', 'docker: [\n']], /^reading registries.d file "\/d\/a.yaml": yaml: line 1: did not find expected node content$/],
    [
      'a lookaside that is not a string',
      [['/d/a.yaml', 'default-docker:\n  lookaside: 5\n']],
      /cannot unmarshal number into lookaside of type string/,
    ],
    // Quoted: a string, which Go's bool field refuses.
    [
      'a quoted boolean',
      [['/d/a.yaml', 'default-docker:\n  use-sigstore-attachments: "true"\n']],
      /cannot unmarshal string into use-sigstore-attachments of type bool/,
    ],
    ['a list for docker', [['/d/a.yaml', 'docker: [a]\n']], /docker: cannot unmarshal array/],
  ] as const)('refuses %s', (_, files, message) => {
    const r = parseRegistriesD(files);
    expect(r.ok ? 'parsed' : r.error).toMatch(message);
  });

  // containers/image reads these files with sigs.k8s.io/yaml (YAML 1.1 over go-yaml, then
  // encoding/json): js-yaml, which read them before, refused the first three and took the
  // lookaside of the last file's second document.
  it('reads files as Go does: YAML 1.1 booleans, keys matched without case, unknown keys and later documents ignored', () => {
    const r = parseRegistriesD([
      ['/d/a.yaml', 'Default-Docker:\n  Lookaside: file:///var/sigs\n  use-sigstore-attachments: yes\n  lookasid: typo\n'],
      [
        '/d/b.yaml',
        'docker:\n  quay.io/ns:\n    use-sigstore-attachments: off\n    LOOKASIDE: https://ns.example.com\nextra: 1\n---\ndocker:\n  quay.io/other:\n    lookaside: https://second-document.example.com\n',
      ],
    ]);
    if (!r.ok) throw new Error(r.error);
    expect(useSigstoreAttachmentsFor(r.value, parseNormalized('docker.io/x/y:v1'))).toBe(true);
    expect(lookasideFor(r.value, parseNormalized('docker.io/x/y:v1'))).toBe('file:///var/sigs');
    expect(useSigstoreAttachmentsFor(r.value, parseNormalized('quay.io/ns/app:v1'))).toBe(false);
    expect(lookasideFor(r.value, parseNormalized('quay.io/ns/app:v1'))).toBe('https://ns.example.com');
    expect([...r.value.docker.keys()]).toEqual(['quay.io/ns']);
  });

  it('takes null as unset, as Go does: a null default-docker defines none, an empty lookaside falls back to sigstore', () => {
    const r = parseRegistriesD([
      [
        '/d/a.yaml',
        'default-docker: null\ndocker:\n  a.io:\n    lookaside: ""\n    sigstore: https://legacy.example.com\n    use-sigstore-attachments: null\n',
      ],
      ['/d/b.yaml', 'default-docker:\n  lookaside: file:///var/sigs\n'],
      ['/d/c.yaml', ''],
    ]);
    if (!r.ok) throw new Error(r.error);
    expect(lookasideFor(r.value, parseNormalized('a.io/x:v1'))).toBe('https://legacy.example.com');
    expect(lookasideFor(r.value, parseNormalized('b.io/x:v1'))).toBe('file:///var/sigs');
    expect(useSigstoreAttachmentsFor(r.value, parseNormalized('a.io/x:v1'))).toBe(false);
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
