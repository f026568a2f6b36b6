/** The uninstall service's request, ports, progress events and outcomes (see service.ts). */
import type { Result } from '../../shared/errors/index.ts';
import type { KubeClient } from '../../shared/kube/index.ts';
import type { DeletionPreview, PreviewPorts } from '../crd-deletion/index.ts';

/** What to uninstall. */
export interface UninstallRequest {
  /** The ClusterExtension's name. */
  readonly extension: string;
  /** operator-controller's namespace (its Helm release records). */
  readonly systemNamespace: string;
  /** Keep the ServiceAccount and RBAC `olmv1 install` created. */
  readonly keepRbac: boolean;
  /** Also delete the extension's CustomResourceDefinitions and custom resources (decision 0119). */
  readonly deleteCrds: boolean;
  /** How long to wait for the ClusterExtension to go, and then for its CRDs. */
  readonly timeoutMs: number;
}

/** What the service needs: the caller's client, a clock, and where it tells progress. */
export interface UninstallPorts {
  readonly client: KubeClient;
  /** The label selector of the objects `olmv1 install` created for an extension. */
  installerSelector(extension: string): string;
  /** The catalogs' properties of an installed bundle (crd-deletion's PreviewPorts); without it, only the revisions' own. */
  readonly catalogProperties?: PreviewPorts['catalogProperties'];
  sleep(ms: number): Promise<void>;
  /** Milliseconds since the epoch. */
  now(): number;
  /** Told each step as it happens (the command prints them); optional. */
  report?(event: UninstallEvent): void;
}

/** One step of an uninstall, as it happens. */
export type UninstallEvent =
  /** The ClusterExtension's deletion was requested; the service waits for operator-controller. */
  | { readonly type: 'deleting'; readonly extension: string }
  /** Still waiting: for the ClusterExtension (`state`: its finalizers and Progressing) or the CRDs (`state`: their names). */
  | { readonly type: 'waiting'; readonly for: 'extension' | 'crds'; readonly extension: string; readonly state: string }
  /** An object deleted (`Kind namespace/name`, or `ClusterExtension NAME` once it is gone). */
  | { readonly type: 'deleted'; readonly object: string }
  /** The installer's objects kept (keepRbac), selected by `selector`. */
  | { readonly type: 'installerKept'; readonly selector: string }
  /** No object `olmv1 install` created for the extension was found. */
  | { readonly type: 'noInstallerObjects'; readonly extension: string }
  /** No ClusterExtension: what is left of it is deleted (the CRDs an earlier uninstall kept, or an interrupted install's objects). */
  | { readonly type: 'leftovers'; readonly extension: string; readonly what: 'crds' | 'installer' }
  /** An extension's requirements were checked from its revisions only (its catalog could not be read). */
  | { readonly type: 'unchecked'; readonly extension: string }
  /** What the CRD deletion deletes changed since the preview; what is there now is deleted. */
  | { readonly type: 'crdsChanged' }
  /** A CRD's deletion was requested, with its custom resources. */
  | { readonly type: 'deletingCrd'; readonly name: string; readonly customResources: number };

/** What uninstalling deletes (previewUninstall) or deleted (uninstallExtension). */
export interface UninstallSummary {
  readonly extension: string;
  /** True when there is (was) a ClusterExtension to delete. */
  readonly clusterExtension: boolean;
  /** `Kind namespace/name` of the installer's objects deleted (or to delete); none when kept. */
  readonly installerObjects: readonly string[];
  /** True when the installer's objects are kept (keepRbac). */
  readonly installerKept: boolean;
  /** With deleteCrds: the CRDs and custom resources deleted (or to delete). */
  readonly crds?: DeletionPreview;
}

/** Why nothing (or not everything) was done, in the command's words. */
interface UninstallFailure {
  readonly message: string;
  /** The CRD preview when the failure is its refusal (nothing deleted). */
  readonly preview?: DeletionPreview;
}

/** What the service returns: what was (or would be) deleted, or why not. */
export type UninstallOutcome = Result<UninstallSummary, UninstallFailure>;
