import { describe, expect, it } from 'vitest';
import { type TlsCapabilities, type TlsProfile, parseTlsProfile, secureContextOptions } from './index.ts';
import { CURVE_OPENSSL_NAMES, TLS12_OPENSSL_NAMES } from './names.ts';
import { PROFILES } from './profiles.ts';
import { type ProfileContext } from './secure-context.ts';

/** OpenSSL 3 without its legacy provider: no RC4, no 3DES; every curve. */
const OPENSSL3: TlsCapabilities = {
  cipher: (name) => !/RC4|DES-CBC3/.test(name),
  curve: () => true,
};

function context(profile: TlsProfile, caps: TlsCapabilities = OPENSSL3): ProfileContext {
  const r = secureContextOptions(profile, caps);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

function custom(ciphers = '', curves?: string, version?: string): TlsProfile {
  const r = parseTlsProfile({ profile: 'custom', customCiphers: ciphers, customCurves: curves, customVersion: version });
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

describe('secureContextOptions', () => {
  it('intermediate: TLS 1.2 minimum, OpenSSL names for TLS 1.2 suites after the TLS 1.3 ones, the Mozilla groups', () => {
    expect(context(PROFILES.intermediate)).toEqual({
      options: {
        minVersion: 'TLSv1.2',
        ciphers: [
          'TLS_AES_128_GCM_SHA256',
          'TLS_AES_256_GCM_SHA384',
          'TLS_CHACHA20_POLY1305_SHA256',
          'ECDHE-ECDSA-AES128-GCM-SHA256',
          'ECDHE-RSA-AES128-GCM-SHA256',
          'ECDHE-ECDSA-AES256-GCM-SHA384',
          'ECDHE-RSA-AES256-GCM-SHA384',
          'ECDHE-ECDSA-CHACHA20-POLY1305',
          'ECDHE-RSA-CHACHA20-POLY1305',
        ].join(':'),
        ecdhCurve: 'X25519MLKEM768:X25519:prime256v1:secp384r1',
      },
      skipped: { ciphers: [], curves: [] },
    });
  });

  it('modern: TLS 1.3 only, its three suites', () => {
    expect(context(PROFILES.modern).options).toMatchObject({
      minVersion: 'TLSv1.3',
      ciphers: 'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256',
    });
  });

  it('old: TLS 1.0 with OpenSSL security level 0, and the 3DES suite OpenSSL 3 lacks dropped and reported', () => {
    const { options, skipped } = context(PROFILES.old);
    expect(options.minVersion).toBe('TLSv1');
    expect(options.ciphers.endsWith(':AES256-SHA:@SECLEVEL=0')).toBe(true);
    expect(options.ciphers).not.toContain('DES-CBC3');
    expect(skipped.ciphers).toEqual(['TLS_RSA_WITH_3DES_EDE_CBC_SHA']);
  });

  it('custom without lists: Go defaults (ten ECDHE suites for TLS 1.2, all TLS 1.3 suites, five groups)', () => {
    const { options } = context(custom());
    expect(options.ciphers.split(':')).toHaveLength(13);
    expect(options.ciphers).not.toMatch(/(^|:)AES/);
    expect(options.ecdhCurve).toBe('X25519MLKEM768:X25519:prime256v1:secp384r1:secp521r1');
  });

  it('custom list without TLS 1.3 names keeps Go behaviour (all TLS 1.3 suites); with some, only those', () => {
    expect(context(custom('TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384')).options.ciphers).toBe(
      'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:ECDHE-RSA-AES256-GCM-SHA384',
    );
    expect(context(custom('TLS_AES_256_GCM_SHA384,TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384')).options.ciphers).toBe(
      'TLS_AES_256_GCM_SHA384:ECDHE-RSA-AES256-GCM-SHA384',
    );
  });

  it('maps secp256r1 to prime256v1 once, and TLS 1.1 custom adds the security level', () => {
    const { options } = context(custom('TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA', 'secp256r1,prime256v1,X25519', 'TLSv1.1'));
    expect(options).toEqual({
      minVersion: 'TLSv1.1',
      ciphers: 'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:ECDHE-RSA-AES128-SHA:@SECLEVEL=0',
      ecdhCurve: 'prime256v1:X25519',
    });
  });

  it.each<[string, TlsProfile, TlsCapabilities, string]>([
    [
      'a custom suite OpenSSL lacks',
      custom('TLS_RSA_WITH_RC4_128_SHA'),
      OPENSSL3,
      'cipher "TLS_RSA_WITH_RC4_128_SHA" (OpenSSL RC4-SHA) is not supported',
    ],
    [
      'a custom curve OpenSSL lacks',
      custom('', 'X25519MLKEM768'),
      { cipher: () => true, curve: (c) => c !== 'X25519MLKEM768' },
      'curve "X25519MLKEM768"',
    ],
    ['only TLS 1.3 suites at TLS 1.2', custom('TLS_AES_128_GCM_SHA256'), OPENSSL3, 'no cipher for TLSv1.2'],
    ['no usable curve', PROFILES.modern, { cipher: () => true, curve: () => false }, 'none of its curves'],
  ])('refuses %s', (_what, profile, caps, message) => {
    const r = secureContextOptions(profile, caps);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain(message);
  });

  it('drops groups a named profile has and OpenSSL lacks (an OpenSSL before 3.5 has no ML-KEM)', () => {
    const { options, skipped } = context(PROFILES.intermediate, { cipher: () => true, curve: (c) => !c.includes('MLKEM') });
    expect(options.ecdhCurve).toBe('X25519:prime256v1:secp384r1');
    expect(skipped.curves).toEqual(['X25519MLKEM768']);
  });

  it('maps every Go suite and curve name to a distinct OpenSSL name', () => {
    const ssl = Object.values(TLS12_OPENSSL_NAMES);
    expect(new Set(ssl).size).toBe(ssl.length);
    for (const name of Object.values(CURVE_OPENSSL_NAMES)) expect(name).toMatch(/^[A-Za-z0-9]+$/);
  });
});
