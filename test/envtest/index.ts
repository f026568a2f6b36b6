/**
 * Public surface of the test environment: real kube-apiserver + etcd and a real OCI registry
 * on loopback, with binaries from KUBEBUILDER_ASSETS or built from pinned Go modules.
 *
 * Most tests only `inject()` what test/envtest/global-setup.ts provides. Tests that need
 * their own servers (apiserver restarts, leader election, token-auth registries) use
 * startControlPlane / startRegistry with `inject('envtestBinaries')`.
 */
export { defaultCacheRoot, describeVersions, resolveBinaries, type EnvtestBinaries, type ResolveBinariesOptions } from './binaries.ts';
export {
  createCertificateAuthority,
  issueCertificate,
  type CertificateAuthority,
  type CertificateRequest,
  type IssuedCertificate,
} from './certs.ts';
export { CONTROL_PLANE_DEFAULTS } from './control-plane-args.ts';
export { ADMIN_GROUP, ADMIN_USER } from './control-plane-pki.ts';
export {
  startControlPlane,
  type ControlPlane,
  type ControlPlaneBinaries,
  type ControlPlaneInfo,
  type StartControlPlaneOptions,
} from './control-plane.ts';
export { REGISTRY_USERNAME, startEnvironment, type Environment, type EnvironmentInfo } from './environment.ts';
export { kubeRequest, type KubeAuth, type KubeEndpoint, type KubeRequest, type KubeResponse } from './kube-http.ts';
export { freePorts } from './ports.ts';
export { startProcess, type ExitStatus, type ManagedProcess, type StartProcessOptions } from './process.ts';
export { Reaper } from './reaper.ts';
export { renderKubeconfig, type KubeconfigCredentials, type KubeconfigOptions } from './kubeconfig.ts';
export { startRegistry, type Registry, type RegistryBinaries, type RegistryInfo, type StartRegistryOptions } from './registry.ts';
export { ensureServiceAccount, requestServiceAccountToken, serviceAccountKubeconfig, type TokenRequestOptions } from './service-accounts.ts';
export { ETCD_VERSION, KUBERNETES_VERSION, REGISTRY_VERSION } from './versions.ts';
