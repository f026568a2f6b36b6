/**
 * The names upstream's TLS flags accept (Go's IANA cipher suite names) and their OpenSSL names
 * (its own up to TLS 1.2, IANA for TLS 1.3). Curves share names, but upstream also accepts
 * `secp256r1` for `prime256v1`.
 */

/** The TLS versions of `--tls-custom-version`, as upstream spells them. */
export const TLS_VERSIONS = ['TLSv1.0', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as const;
export type TlsVersionName = (typeof TLS_VERSIONS)[number];

/** Node's `minVersion` value for each of them. */
export const NODE_TLS_VERSION = {
  'TLSv1.0': 'TLSv1',
  'TLSv1.1': 'TLSv1.1',
  'TLSv1.2': 'TLSv1.2',
  'TLSv1.3': 'TLSv1.3',
} as const satisfies Record<TlsVersionName, string>;

/** TLS 1.3 suites Go supports; OpenSSL uses the same names. */
export const TLS13_CIPHERS = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'] as const;

/** Every TLS 1.0-1.2 suite Go knows by name, with its OpenSSL name. */
export const TLS12_OPENSSL_NAMES: Readonly<Record<string, string>> = {
  // tls.CipherSuites()
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  // tls.InsecureCipherSuites(); RC4 and 3DES are absent from OpenSSL 3's default provider.
  TLS_RSA_WITH_RC4_128_SHA: 'RC4-SHA',
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: 'ECDHE-ECDSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: 'ECDHE-RSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
};

/** True for a name `--tls-custom-ciphers` accepts (Go knows it). */
export function isKnownCipher(name: string): boolean {
  return (TLS13_CIPHERS as readonly string[]).includes(name) || Object.hasOwn(TLS12_OPENSSL_NAMES, name);
}

/**
 * The TLS 1.2 suites with forward secrecy and an AEAD cipher, in Go's preference order: Mozilla's
 * intermediate TLS 1.2 list, and the head of Go's defaults.
 */
export const ECDHE_AEAD_TLS12_CIPHERS = [
  'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
] as const;

/**
 * Go's (1.23+) default TLS 1.2 suites in its preference order: what a custom profile without
 * `--tls-custom-ciphers` gets upstream.
 */
export const GO_DEFAULT_TLS12_CIPHERS = [
  ...ECDHE_AEAD_TLS12_CIPHERS,
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
] as const;

/** The curve names `--tls-custom-curves` accepts, with their OpenSSL group names. */
export const CURVE_OPENSSL_NAMES: Readonly<Record<string, string>> = {
  X25519MLKEM768: 'X25519MLKEM768',
  X25519: 'X25519',
  prime256v1: 'prime256v1',
  // The IANA name of prime256v1; upstream accepts both.
  secp256r1: 'prime256v1',
  secp384r1: 'secp384r1',
  secp521r1: 'secp521r1',
  SecP256r1MLKEM768: 'SecP256r1MLKEM768',
  SecP384r1MLKEM1024: 'SecP384r1MLKEM1024',
};

/** Go's default curve preferences (Go 1.24 and later): what a custom profile without `--tls-custom-curves` gets. */
export const GO_DEFAULT_CURVES = ['X25519MLKEM768', 'X25519', 'prime256v1', 'secp384r1', 'secp521r1'] as const;
