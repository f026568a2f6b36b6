/**
 * pkg/shared/tlsprofile: upstream's TLS profiles (`--tls-profile` modern, intermediate, old, custom)
 * and the Node TLS options of each, for every TLS server the components run. Pure: the edge
 * says what its OpenSSL supports (TlsCapabilities) and applies the options.
 */
export {
  CURVE_OPENSSL_NAMES,
  GO_DEFAULT_CURVES,
  GO_DEFAULT_TLS12_CIPHERS,
  TLS12_OPENSSL_NAMES,
  TLS13_CIPHERS,
  TLS_VERSIONS,
  isKnownCipher,
  type TlsVersionName,
} from './names.ts';
export { DEFAULT_PROFILE, PROFILES, PROFILE_NAMES, parseTlsProfile, type ProfileName, type TlsProfile, type TlsProfileFlags } from './profiles.ts';
export { secureContextOptions, type ProfileContext, type ProfileContextOptions, type TlsCapabilities } from './secure-context.ts';
