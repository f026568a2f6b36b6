/**
 * What the upgrade services read and write through, injected: the user's client, the catalogs'
 * resolution as operator-controller resolves (the olmv1 CLI's cluster resolution), bundle images,
 * operator-controller's gate parser, and for the approval the RBAC `olmv1 install` grants.
 */
import type { RegistryV1Bundle } from '../../operator-controller/bundle/index.ts';
import type { RenderOptions, CertProviderName } from '../../operator-controller/render/index.ts';
import type { ResolveInput, resolve } from '../../operator-controller/resolve/index.ts';
import type { ClusterExtension } from '../../shared/api/index.ts';
import type { Bundle, Deprecation } from '../../shared/fbc/index.ts';
import type { Result } from '../../shared/errors/index.ts';
import type { KubeClient, KubeObject, OpenApiSchemas } from '../../shared/kube/index.ts';
import type { ControllerGateParser } from './gates.ts';

/** A ClusterExtension read and parsed, with its catalog source. */
export interface ReadExtension {
  /** The object as read (metadata.resourceVersion and annotations included). */
  object: KubeObject;
  extension: ClusterExtension;
  source: NonNullable<ClusterExtension['spec']['source']['catalog']>;
}

/** The catalogs' resolution for an extension, as operator-controller resolves it, read as the user. */
interface UpgradeResolver {
  /** The ClusterExtension `name`; rejects with what is wrong (missing, unreadable, no catalog source). */
  extension(name: string): Promise<ReadExtension>;
  /** The resolver's input: the catalogs operator-controller would select, or the error it would report. */
  input(source: ReadExtension['source'], installed: ResolveInput['installed']): Promise<Result<ResolveInput, string>>;
  /** The resolution with the dependency checks; `note`: what of the cluster could not be read for them. */
  resolve(
    extension: string,
    selector: ReadExtension['source']['selector'],
    input: ResolveInput,
  ): Promise<{ result: ReturnType<typeof resolve>; note?: string }>;
  /** What the catalogs offer instead after a failed resolution (empty when nothing). */
  hints(input: ResolveInput, selector: ReadExtension['source']['selector'], error: string): Promise<string[]>;
  /** Why operator-controller holds the move for another installed extension; undefined when it does not. */
  dependentsHold(
    self: { name: string; packageName: string; installed: { name: string; version: string } },
    target: Bundle,
  ): Promise<string | undefined>;
  /** The entries of `deprecation` the deprecation conditions would use. */
  deprecation(deprecation: Deprecation | null, channels: readonly string[], bundleName: string): Deprecation | null;
}

/** Bundle images, pulled with the user's registry settings. */
interface BundleImages {
  /** Checks the registry settings before anything is pulled; rejects with what is wrong with them. */
  checkSettings(): Promise<void>;
  /** The files of bundle image `image`; rejects when it cannot be pulled. */
  fetch(image: string): Promise<ReadonlyMap<string, Uint8Array>>;
  /** The bundle a catalog names, loaded as `olmv1 install` loads it; rejects with what went wrong. */
  load(image: string): Promise<RegistryV1Bundle>;
}

/** The RBAC `olmv1 install` grants an extension's ServiceAccount. */
interface InstallRbac {
  /** The label `olmv1 install` puts on what it creates, and its value. */
  installedBy: { label: string; value: string };
  /** The label selector of what `olmv1 install` created for `extension`. */
  selector(extension: string): string;
  /** The roles and bindings `bundle` needs for `serviceAccount`; rejects (throws) when the bundle is refused. */
  wanted(
    bundle: RegistryV1Bundle,
    options: RenderOptions,
    serviceAccount: string,
    args: { installNamespace: string; certProvider?: CertProviderName },
  ): KubeObject[];
}

/** What planUpgrade and approveUpgrade need. */
export interface UpgradeDeps {
  /** The user's client: every read and write is theirs. */
  client: KubeClient;
  /** The API server's schemas, to drop the fields they do not declare, as the render step does. */
  schemas: Pick<OpenApiSchemas, 'schemaFor'>;
  resolver: UpgradeResolver;
  /** Undefined: bundle images cannot be pulled here. */
  bundles: BundleImages | undefined;
  gateParser: ControllerGateParser;
  /** For the approval of an extension `olmv1 install` created. */
  rbac: InstallRbac;
  /** Progress lines (the bundle pull); none when undefined. */
  progress?: ((line: string) => void) | undefined;
  /** ms since the epoch, for the maintenance window. */
  now(): number;
}

/** Where the revisions are and the cluster's version, for both services. */
export interface UpgradeTarget {
  extension: string;
  /** operator-controller's namespace (its release records, its Deployment). */
  systemNamespace: string;
}
