/**
 * Public surface of the test environment: real kube-apiserver + etcd and a real OCI registry
 * on loopback (the servers themselves live in pkg/olmv1/localstack, shared with `olmv1 up`).
 *
 * Most tests only `inject()` what test/envtest/global-setup.ts provides. Tests that need
 * their own servers (apiserver restarts, leader election, token-auth registries) use
 * startControlPlane / startRegistry with `inject('envtestBinaries')`.
 */
export {
  ADMIN_GROUP,
  ADMIN_USER,
  CONTROL_PLANE_DEFAULTS,
  ETCD_VERSION,
  KUBERNETES_VERSION,
  REGISTRY_VERSION,
  Reaper,
  ServerExitedError,
  createCertificateAuthority,
  defaultCacheRoot,
  describeVersions,
  freePorts,
  isAlive,
  issueCertificate,
  kubeRequest,
  renderKubeconfig,
  resolveBinaries,
  startControlPlane,
  startProcess,
  startRegistry,
  withFreePorts,
  type CertificateAuthority,
  type CertificateRequest,
  type ControlPlane,
  type ControlPlaneBinaries,
  type ControlPlaneInfo,
  type EnvtestBinaries,
  type ExitStatus,
  type IssuedCertificate,
  type KubeAuth,
  type KubeEndpoint,
  type KubeRequest,
  type KubeResponse,
  type KubeconfigCredentials,
  type KubeconfigOptions,
  type ManagedProcess,
  type Registry,
  type RegistryBinaries,
  type RegistryInfo,
  type ResolveBinariesOptions,
  type StartControlPlaneOptions,
  type StartProcessOptions,
  type StartRegistryOptions,
} from '../../pkg/olmv1/localstack/index.ts';
export { REGISTRY_USERNAME, startEnvironment, type Environment, type EnvironmentInfo } from './environment.ts';
export { ensureServiceAccount, requestServiceAccountToken, serviceAccountKubeconfig, type TokenRequestOptions } from './service-accounts.ts';
