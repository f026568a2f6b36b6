/**
 * pkg/shared/tlsprofile: upstream's TLS profiles (`--tls-profile` modern, intermediate, old, custom)
 * and the Node TLS options of each, for every TLS server the components run. Pure: the edge
 * says what its OpenSSL supports (TlsCapabilities) and applies the options.
 */
export { TLS_VERSIONS } from './names.ts';
export { PROFILE_NAMES, parseTlsProfile, type TlsProfile } from './profiles.ts';
export { secureContextOptions, type ProfileContextOptions, type TlsCapabilities } from './secure-context.ts';
