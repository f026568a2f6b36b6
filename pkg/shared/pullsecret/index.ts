/**
 * pkg/shared/pullsecret: registry credentials of a component (catalogd, operator-controller)
 * from the global pull secret and its ServiceAccount's imagePullSecrets, kept current.
 */
export { PullSecretCredentials } from './pull-secret.ts';
