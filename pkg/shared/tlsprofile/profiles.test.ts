import { describe, expect, it } from 'vitest';
import { type TlsProfile, parseTlsProfile } from './index.ts';
import { PROFILES, type TlsProfileFlags } from './profiles.ts';

function parsed(flags: TlsProfileFlags): TlsProfile {
  const r = parseTlsProfile(flags);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

describe('parseTlsProfile', () => {
  it('defaults to intermediate, as upstream: TLS 1.2 and up, Mozilla 6.0 suites and curves', () => {
    expect(parsed({})).toEqual({
      name: 'intermediate',
      minVersion: 'TLSv1.2',
      ciphers: [
        'TLS_AES_128_GCM_SHA256',
        'TLS_AES_256_GCM_SHA384',
        'TLS_CHACHA20_POLY1305_SHA256',
        'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
        'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
        'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
        'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
        'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
        'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
      ],
      curves: ['X25519MLKEM768', 'X25519', 'prime256v1', 'secp384r1'],
    });
  });

  it.each([
    ['modern', 'TLSv1.3', 3],
    ['Modern', 'TLSv1.3', 3],
    ['old', 'TLSv1.0', 21],
    ['INTERMEDIATE', 'TLSv1.2', 9],
  ])('--tls-profile=%s: minimum %s, %i suites (names are case-insensitive, as upstream)', (profile, minVersion, n) => {
    const p = parsed({ profile });
    expect(p.minVersion).toBe(minVersion);
    expect(p.ciphers).toHaveLength(n);
  });

  it('custom: the listed suites, curves and version; empty lists and TLSv1.2 by default', () => {
    expect(parsed({ profile: 'custom' })).toEqual({ name: 'custom', minVersion: 'TLSv1.2', ciphers: [], curves: [] });
    expect(
      parsed({
        profile: 'custom',
        customCiphers: 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_AES_128_GCM_SHA256',
        customCurves: 'X25519,secp256r1',
        customVersion: 'TLSv1.3',
      }),
    ).toEqual({
      name: 'custom',
      minVersion: 'TLSv1.3',
      ciphers: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_AES_128_GCM_SHA256'],
      curves: ['X25519', 'secp256r1'],
    });
    // Go's insecure suites are known names too.
    expect(parsed({ profile: 'custom', customCiphers: 'TLS_RSA_WITH_RC4_128_SHA' }).ciphers).toEqual(['TLS_RSA_WITH_RC4_128_SHA']);
  });

  it.each<[TlsProfileFlags, string]>([
    [
      { profile: 'strict' },
      'invalid argument "strict" for "--tls-profile" flag: unknown TLS profile: "strict" (one of custom, intermediate, modern, old)',
    ],
    [{ profile: 'custom', customCiphers: 'ECDHE-RSA-AES128-GCM-SHA256' }, 'unknown cipher "ECDHE-RSA-AES128-GCM-SHA256"'],
    [{ profile: 'custom', customCurves: 'X25519,P-256' }, 'invalid argument "X25519,P-256" for "--tls-custom-curves" flag: unknown curve "P-256"'],
    [{ profile: 'custom', customVersion: '1.3' }, 'invalid argument "1.3" for "--tls-custom-version" flag: unknown TLS version: "1.3"'],
    [{ customVersion: 'TLSv1.3' }, '--tls-custom-version applies only to --tls-profile=custom (the profile is intermediate)'],
    [{ profile: 'modern', customCiphers: '' }, '--tls-custom-ciphers applies only to --tls-profile=custom (the profile is modern)'],
  ])('refuses %j', (flags, message) => {
    const r = parseTlsProfile(flags);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain(message);
  });

  it('keeps TLS 1.3 suites first in every named profile and old a superset of intermediate', () => {
    for (const p of Object.values(PROFILES)) expect(p.ciphers.slice(0, 3)).toEqual(PROFILES.modern.ciphers);
    for (const c of PROFILES.intermediate.ciphers) expect(PROFILES.old.ciphers).toContain(c);
  });
});
