/**
 * TLS profiles and the `--tls-profile` and `--tls-custom-*` flags that choose them, with
 * upstream's names, defaults and error texts. The named profiles are Mozilla's: `modern` and
 * `intermediate` from its guidelines 6.0 (as upstream embeds), `old` from 5.8.
 */
import { err, ok, type Result } from '../errors/index.ts';
import { CURVE_OPENSSL_NAMES, ECDHE_AEAD_TLS12_CIPHERS, TLS13_CIPHERS, TLS_VERSIONS, type TlsVersionName, isKnownCipher } from './names.ts';

/** The profile names, as `--tls-profile` takes them (case-insensitively, as upstream). */
export const PROFILE_NAMES = ['custom', 'intermediate', 'modern', 'old'] as const;
type ProfileName = (typeof PROFILE_NAMES)[number];

/** Upstream's default `--tls-profile`. */
const DEFAULT_PROFILE: ProfileName = 'intermediate';

/** What a TLS server accepts, in upstream's names. */
export interface TlsProfile {
  name: ProfileName;
  /** The lowest TLS version offered; the highest is always TLS 1.3. */
  minVersion: TlsVersionName;
  /** Go (IANA) cipher suite names in preference order; empty: Go's defaults (custom profile only). */
  ciphers: readonly string[];
  /** Curve names in preference order; empty: Go's defaults (custom profile only). */
  curves: readonly string[];
}

const MOZILLA_CURVES = ['X25519MLKEM768', 'X25519', 'prime256v1', 'secp384r1'];

/** The named profiles. */
export const PROFILES: Readonly<Record<Exclude<ProfileName, 'custom'>, TlsProfile>> = {
  modern: { name: 'modern', minVersion: 'TLSv1.3', ciphers: TLS13_CIPHERS, curves: MOZILLA_CURVES },
  intermediate: { name: 'intermediate', minVersion: 'TLSv1.2', ciphers: [...TLS13_CIPHERS, ...ECDHE_AEAD_TLS12_CIPHERS], curves: MOZILLA_CURVES },
  old: {
    name: 'old',
    minVersion: 'TLSv1.0',
    ciphers: [
      ...TLS13_CIPHERS,
      ...ECDHE_AEAD_TLS12_CIPHERS,
      'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256',
      'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256',
      'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA',
      'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA',
      'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA',
      'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
      'TLS_RSA_WITH_AES_128_GCM_SHA256',
      'TLS_RSA_WITH_AES_256_GCM_SHA384',
      'TLS_RSA_WITH_AES_128_CBC_SHA256',
      'TLS_RSA_WITH_AES_128_CBC_SHA',
      'TLS_RSA_WITH_AES_256_CBC_SHA',
      'TLS_RSA_WITH_3DES_EDE_CBC_SHA',
    ],
    curves: MOZILLA_CURVES,
  },
};

/** The raw values of the four flags; undefined when a flag was not given. */
export interface TlsProfileFlags {
  profile?: string | undefined;
  customCiphers?: string | undefined;
  customCurves?: string | undefined;
  customVersion?: string | undefined;
}

/** pflag's wording for a value a flag refuses, which upstream's binaries print. */
function invalid(flag: string, value: string, reason: string): Result<never> {
  return err(`invalid argument ${JSON.stringify(value)} for "--${flag}" flag: ${reason}`);
}

/** Splits a comma-separated flag value; an empty value is an empty list. */
function list(value: string): string[] {
  return value === '' ? [] : value.split(',').map((v) => v.trim());
}

/**
 * The profile the flags choose. Errors (a value, pflag's wording): an unknown profile, cipher,
 * curve or version, and a `--tls-custom-*` flag without `--tls-profile=custom` (ignored by
 * upstream; a security setting that silently does nothing is refused here).
 */
export function parseTlsProfile(flags: TlsProfileFlags): Result<TlsProfile> {
  const raw = flags.profile ?? DEFAULT_PROFILE;
  const name = raw.toLowerCase();
  if (!(PROFILE_NAMES as readonly string[]).includes(name)) {
    return invalid('tls-profile', raw, `unknown TLS profile: ${JSON.stringify(raw)} (one of ${PROFILE_NAMES.join(', ')})`);
  }
  const given = (
    [
      ['tls-custom-ciphers', flags.customCiphers],
      ['tls-custom-curves', flags.customCurves],
      ['tls-custom-version', flags.customVersion],
    ] as const
  ).filter(([, v]) => v !== undefined);
  if (name !== 'custom') {
    const first = given[0];
    if (first !== undefined) return err(`--${first[0]} applies only to --tls-profile=custom (the profile is ${name})`);
    return ok(PROFILES[name as Exclude<ProfileName, 'custom'>]);
  }
  const ciphers = list(flags.customCiphers ?? '');
  for (const c of ciphers)
    if (!isKnownCipher(c)) return invalid('tls-custom-ciphers', flags.customCiphers ?? '', `unknown cipher ${JSON.stringify(c)}`);
  const curves = list(flags.customCurves ?? '');
  for (const c of curves) {
    if (!Object.hasOwn(CURVE_OPENSSL_NAMES, c)) return invalid('tls-custom-curves', flags.customCurves ?? '', `unknown curve ${JSON.stringify(c)}`);
  }
  const version = flags.customVersion ?? 'TLSv1.2';
  if (!(TLS_VERSIONS as readonly string[]).includes(version)) {
    return invalid('tls-custom-version', version, `unknown TLS version: ${JSON.stringify(version)} (one of ${TLS_VERSIONS.join(', ')})`);
  }
  return ok({ name: 'custom', minVersion: version as TlsVersionName, ciphers, curves });
}
