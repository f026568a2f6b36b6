/** Inputs and outputs of `resolve`: the caller fetches each selected catalog's partition (or its error) first. */
import type { UpgradeConstraintPolicy } from '../../shared/api/index.ts';
import type { Bundle, DeclarativeConfig, Deprecation } from '../../shared/fbc/types.ts';
import type { ReleaseOptions, VersionRelease } from './release.ts';

/**
 * The installed bundle (`status.install.bundle`), or what the CLI is told is installed.
 * `release` null/undefined means "no explicit release": the version is then read the legacy
 * way (a release may travel in its build metadata). `""` is an explicit empty release.
 */
export interface InstalledBundle {
  readonly name: string;
  readonly version: string;
  readonly release?: string | null | undefined;
}

/** A catalog whose package partition was fetched. `package` null means "nothing there". */
export interface CatalogPackage {
  readonly name: string;
  /** `spec.priority`: higher wins; ties at the top are an error. */
  readonly priority: number;
  /** The package's partition of the catalog, e.g. from `packagePartition`. */
  readonly package: DeclarativeConfig | null;
}

/**
 * A catalog whose partition could not be fetched. `error` is the fetch error's text (e.g.
 * `catalog "x" is not being served`); any such catalog fails the whole resolution.
 */
interface CatalogFetchFailure {
  readonly name: string;
  readonly error: string;
}

/** One selected, available catalog, in listing order. */
export type CatalogInput = CatalogPackage | CatalogFetchFailure;

/** What to resolve: the ClusterExtension's `spec.source.catalog` plus what is installed. */
export interface ResolveInput extends ReleaseOptions {
  readonly packageName: string;
  /** Channel names; empty or absent means all channels (and bundles in none). */
  readonly channels?: readonly string[] | undefined;
  /** Masterminds range; `""` or absent means no range filter. */
  readonly versionRange?: string | undefined;
  /** Anything other than `SelfCertified` (including absent) means `CatalogProvided`. */
  readonly upgradeConstraintPolicy?: UpgradeConstraintPolicy | string | undefined;
  readonly installed?: InstalledBundle | null | undefined;
  /** Catalogs in listing order; the order decides which error is reported first. */
  readonly catalogs: readonly CatalogInput[];
  /**
   * Checks the chosen bundle (decision 0104): its declared dependencies, its minimum
   * Kubernetes version. Undefined when it may be installed, else why not (the error text when
   * no other bundle is left). Absent: a bundle that declares dependencies is refused with
   * upstream's "not supported" error.
   */
  readonly dependencies?: ((bundle: Bundle) => string | undefined) | undefined;
}

/** A better bundle the resolution did not take because its dependencies are unmet. */
export interface PassedOver {
  readonly bundle: string;
  readonly catalog: string;
  readonly reason: string;
}

/** A successful resolution. */
export interface Resolution {
  readonly bundle: Bundle;
  readonly versionRelease: VersionRelease;
  /** Name of the catalog the bundle comes from. */
  readonly catalog: string;
  /**
   * The first `olm.deprecations` object of the package in the winning catalog, or null
   * (decision 0030: upstream returns the last kept catalog's, which may be another one).
   */
  readonly deprecation: Deprecation | null;
  /** Better bundles passed over for unmet dependencies, best first (empty when none). */
  readonly passedOver: readonly PassedOver[];
}
