import { describe, expect, it } from 'vitest';
import { parsePolicy } from './signature-policy.ts';

const F = '/etc/containers/policy.json';
const bad = (text: string) => {
  const r = parsePolicy(text, F);
  if (r.ok) throw new Error('parsed');
  return r.error;
};

describe('parsePolicy', () => {
  it('parses every requirement and identity kind', () => {
    const r = parsePolicy(
      JSON.stringify({
        default: [{ type: 'reject' }],
        transports: {
          docker: {
            'quay.io/a': [{ type: 'signedBy', keyType: 'GPGKeys', keyPath: '/k.gpg' }],
            'quay.io/b': [{ type: 'signedBy', keyType: 'GPGKeys', keyPaths: ['/a', '/b'], signedIdentity: { type: 'matchRepository' } }],
            'quay.io/c': [
              {
                type: 'signedBy',
                keyType: 'GPGKeys',
                keyData: Buffer.from('key').toString('base64'),
                signedIdentity: { type: 'exactReference', dockerReference: 'quay.io/c:v1' },
              },
            ],
            '*.example.com': [{ type: 'insecureAcceptAnything' }],
            '': [{ type: 'sigstoreSigned', keyPath: '/c.pub', signedIdentity: { type: 'remapIdentity', prefix: 'a.io', signedPrefix: 'b.io' } }],
          },
          atomic: { x: [{ type: 'reject' }] },
        },
      }),
      F,
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const docker = r.value.transports.get('docker');
    expect(docker?.get('quay.io/a')).toEqual([
      { type: 'signedBy', keyType: 'GPGKeys', keys: { kind: 'path', path: '/k.gpg' }, signedIdentity: { type: 'matchRepoDigestOrExact' } },
    ]);
    expect(docker?.get('quay.io/c')?.[0]).toMatchObject({ keys: { kind: 'data', data: Buffer.from('key') } });
    expect(docker?.get('')?.[0]).toEqual({
      type: 'sigstoreSigned',
      keys: { kind: 'path', path: '/c.pub' },
      certificates: undefined,
      rekor: false,
      signedIdentity: { type: 'remapIdentity', prefix: 'a.io', signedPrefix: 'b.io' },
    });
    expect(r.value.transports.get('atomic')?.get('x')).toEqual([{ type: 'reject' }]);
  });

  it.each([
    ['not JSON', '{"default": [', /^invalid policy in "\/etc\/containers\/policy.json": .*JSON/],
    ['an array', '[]', /policy is not a JSON object/],
    ['no default', '{"transports": {}}', /Default policy is missing$/],
    ['an unknown top-level key', '{"default": [{"type": "reject"}], "defualt": []}', /Unknown key "defualt"/],
    ['an unknown requirement type', '{"default": [{"type": "acceptSigned"}]}', /Unknown policy requirement type "acceptSigned"$/],
    ['a requirement without a type', '{"default": [{}]}', /Unknown policy requirement type ""/],
    ['an empty requirement list', '{"default": []}', /must not be empty$/],
    ['an empty scope list', '{"default": [{"type": "reject"}], "transports": {"docker": {"a.io": []}}}', /must not be empty$/],
    ['an extra field on reject', '{"default": [{"type": "reject", "keyPath": "/x"}]}', /Unknown key "keyPath"/],
    ['signedBy without a key', '{"default": [{"type": "signedBy", "keyType": "GPGKeys"}]}', /none of them present$/],
    ['signedBy with two keys', '{"default": [{"type": "signedBy", "keyType": "GPGKeys", "keyPath": "/a", "keyData": ""}]}', /more than one present$/],
    ['signedBy with a bad keyType', '{"default": [{"type": "signedBy", "keyType": "PGP", "keyPath": "/a"}]}', /invalid keyType "PGP"/],
    ['keyData that is not base64', '{"default": [{"type": "signedBy", "keyType": "GPGKeys", "keyData": "!!"}]}', /base64/],
    [
      'sigstoreSigned without a key',
      '{"default": [{"type": "sigstoreSigned"}]}',
      /exactly one of keyPath, keyPaths, keyData, keyDatas, fulcio, and pki/,
    ],
    ['sigstoreSigned with two keys', '{"default": [{"type": "sigstoreSigned", "keyPath": "/a", "keyData": "AAAA"}]}', /exactly one of keyPath/],
    ['sigstoreSigned with empty keyPaths', '{"default": [{"type": "sigstoreSigned", "keyPaths": []}]}', /"keyPaths" contains no entries/],
    ['sigstoreSigned keyDatas not base64', '{"default": [{"type": "sigstoreSigned", "keyDatas": ["!!"]}]}', /illegal base64 data in "keyDatas"/],
    [
      'fulcio without Rekor',
      '{"default": [{"type": "sigstoreSigned", "fulcio": {"caPath": "/c", "oidcIssuer": "i", "subjectEmail": "e"}}]}',
      /must be specified if fulcio is used/,
    ],
    ['an unknown sigstoreSigned key', '{"default": [{"type": "sigstoreSigned", "keyPath": "/a", "keyType": "x"}]}', /Unknown key "keyType"/],
    [
      'an unknown identity type',
      '{"default": [{"type": "signedBy", "keyType": "GPGKeys", "keyPath": "/a", "signedIdentity": {"type": "any"}}]}',
      /reference match type "any"/,
    ],
  ])('refuses %s, naming the file', (_, text, message) => {
    const e = bad(text);
    expect(e).toMatch(/^invalid policy in "\/etc\/containers\/policy.json": /);
    expect(e).toMatch(message);
  });

  it('accepts any docker scope string, as the docker transport does (a malformed one never matches)', () => {
    expect(parsePolicy('{"default": [{"type": "reject"}], "transports": {"docker": {"*.a.io/ns": [{"type": "reject"}]}}}', F).ok).toBe(true);
  });

  it('a huge document is parsed or refused, never accepted by accident', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(bad(`{"default": ${deep}}`)).toMatch(/invalid policy/);
  });
});
