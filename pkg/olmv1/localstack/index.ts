/**
 * pkg/olmv1/localstack: real etcd, kube-apiserver, OCI registries and on request a real node,
 * from pinned Go modules, for the tests, the benchmarks and `olmv1 up`; all stopped by `stop()`,
 * or by a reaper process if ours dies first.
 */
export {
  defaultCacheRoot,
  describeVersions,
  firstBuildEstimate,
  firstNodeBuildEstimate,
  resolveBinaries,
  resolveCertManagerBinaries,
  resolveHelm,
  resolveNodeBinaries,
  resolveOldestBinaries,
  type CertManagerBinaries,
  type EnvtestBinaries,
  type ResolveBinariesOptions,
} from './binaries.ts';
export { withGoBuildSlot } from './build.ts';
export {
  createCertificateAuthority,
  createSelfSignedCertificate,
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
export { isExecutable, runCommand } from './exec.ts';
export { findGoToolchain, runGo, type GoToolchain } from './go-toolchain.ts';
export { ensureTool } from './build.ts';
export type { ToolRecipe } from './tool-recipes.ts';
export { buildGoProgram } from './go-program.ts';
export { resolveHydra } from './hydra.ts';
export { kubeRequest, type KubeAuth, type KubeEndpoint, type KubeRequest, type KubeResponse } from './kube-http.ts';
export { renderKubeconfig, type KubeconfigCredentials, type KubeconfigOptions } from './kubeconfig.ts';
export { isAlive, withLock } from './lock.ts';
export { allowPlainHttpRegistry, mirrorRegistry, type NodeBinaries, type NodeInfo } from './node.ts';
export { missingNodePrerequisites } from './node-prereqs.ts';
export { missingImageBuildPrerequisites } from './image-build-prereqs.ts';
export { freePorts, withFreePorts } from './ports.ts';
export { startProcess, type ExitStatus, type ManagedProcess, type StartProcessOptions } from './process.ts';
export { Reaper } from './reaper.ts';
export { startRegistry, type Registry, type RegistryBinaries, type RegistryInfo, type StartRegistryOptions } from './registry.ts';
export { ETCD_VERSION, KUBERNETES_VERSION, REGISTRY_VERSION } from './versions.ts';
export { ServerExitedError, waitUntil } from './wait.ts';
export { createWorkspace, type Workspace } from './workspace.ts';
