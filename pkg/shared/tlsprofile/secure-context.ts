/**
 * A TLS profile as Node `tls.SecureContextOptions`: `minVersion`, `ciphers` (OpenSSL names up to
 * TLS 1.2, IANA names for TLS 1.3, one colon-separated list) and `ecdhCurve`. Where Go and
 * OpenSSL differ, Go's behaviour (what upstream's flags describe) is kept:
 * - A list naming no TLS 1.3 suite leaves Go's three on (Go never restricts them); one naming
 *   some keeps only those (stricter than Go: the operator asked for it).
 * - A minimum below TLS 1.2 adds `@SECLEVEL=0`, without which OpenSSL 3 refuses TLS 1.0/1.1.
 * - Empty custom lists mean Go's defaults.
 * Entries Node's OpenSSL lacks (RC4, 3DES) are dropped from named profiles and reported, as
 * upstream drops what Go lacks; a custom profile naming one is an error.
 */
import { err, ok, type Result } from '../errors/index.ts';
import { CURVE_OPENSSL_NAMES, GO_DEFAULT_CURVES, GO_DEFAULT_TLS12_CIPHERS, NODE_TLS_VERSION, TLS12_OPENSSL_NAMES, TLS13_CIPHERS } from './names.ts';
import type { TlsProfile } from './profiles.ts';

/** The subset of Node's `tls.SecureContextOptions` a profile sets. */
export interface ProfileContextOptions {
  minVersion: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  ciphers: string;
  ecdhCurve: string;
}

/** What this Node's OpenSSL supports, asked at the edge (see `nodeTlsCapabilities` in cmd/). */
export interface TlsCapabilities {
  /** True when OpenSSL knows this cipher (its OpenSSL name, or the IANA name of a TLS 1.3 suite). */
  cipher(openSslName: string): boolean;
  /** True when OpenSSL can use this group for key exchange. */
  curve(openSslName: string): boolean;
}

/** The options, and the profile's entries this OpenSSL lacks (named profiles only). */
export interface ProfileContext {
  options: ProfileContextOptions;
  skipped: { ciphers: string[]; curves: string[] };
}

/** Computes the options of `profile`; see the module comment for the rules and the errors. */
export function secureContextOptions(profile: TlsProfile, caps: TlsCapabilities): Result<ProfileContext> {
  const custom = profile.name === 'custom';
  const skipped = { ciphers: [] as string[], curves: [] as string[] };
  const names = profile.ciphers.length === 0 ? [...TLS13_CIPHERS, ...GO_DEFAULT_TLS12_CIPHERS] : profile.ciphers;
  const named13 = names.filter((n) => (TLS13_CIPHERS as readonly string[]).includes(n));
  const tls13 = named13.length === 0 ? [...TLS13_CIPHERS] : named13;
  const tls12: string[] = [];
  for (const name of names) {
    const openssl = TLS12_OPENSSL_NAMES[name];
    if (openssl === undefined) continue;
    if (caps.cipher(openssl)) tls12.push(openssl);
    else if (custom) return err(`cipher ${JSON.stringify(name)} (OpenSSL ${openssl}) is not supported by this Node's OpenSSL`);
    else skipped.ciphers.push(name);
  }
  const curves: string[] = [];
  for (const name of profile.curves.length === 0 ? GO_DEFAULT_CURVES : profile.curves) {
    const openssl = CURVE_OPENSSL_NAMES[name] ?? name;
    if (caps.curve(openssl)) {
      if (!curves.includes(openssl)) curves.push(openssl);
    } else if (custom && profile.curves.length > 0) return err(`curve ${JSON.stringify(name)} is not supported by this Node's OpenSSL`);
    else skipped.curves.push(name);
  }
  if (curves.length === 0) return err(`TLS profile ${profile.name}: none of its curves is supported by this Node's OpenSSL`);
  const legacy = profile.minVersion === 'TLSv1.0' || profile.minVersion === 'TLSv1.1';
  if (profile.minVersion !== 'TLSv1.3' && tls12.length === 0) {
    return err(`TLS profile ${profile.name}: no cipher for ${profile.minVersion} is supported (name a TLS 1.2 suite or use TLSv1.3)`);
  }
  const ciphers = [...tls13, ...tls12, ...(legacy ? ['@SECLEVEL=0'] : [])].join(':');
  return ok({ options: { minVersion: NODE_TLS_VERSION[profile.minVersion], ciphers, ecdhCurve: curves.join(':') }, skipped });
}
