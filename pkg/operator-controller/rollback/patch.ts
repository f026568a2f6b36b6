/**
 * The declarative part of a rollback, as one merge patch of the ClusterExtension (pure):
 *
 * - `spec.source.catalog.version` pins `M.m.p[-PRE]` (the range grammar ignores build
 *   metadata, so bundles differing only there or in their release share the pin, and
 *   resolution picks the highest: `ambiguous`);
 * - `upgradeConstraintPolicy: SelfCertified`: going back is no upgrade edge of the catalog;
 * - the approved-bundle annotation names the bundle, so a holding update policy lets it through;
 * - `metadata.resourceVersion`, so a concurrent edit makes the patch fail (409), never lost.
 */
import { APPROVED_BUNDLE_ANNOTATION, UpgradeConstraintPolicy } from '../../shared/api/index.ts';
import { err, ok, type Result } from '../../shared/errors/index.ts';
import { parseSemver } from '../../shared/semver/index.ts';
import type { KubeObject } from '../../shared/unstructured/index.ts';
import type { ReleaseBundle } from '../release/index.ts';

/** What a rollback reads of the ClusterExtension, as stored (absent fields stay undefined). */
export interface ExtensionView {
  name: string;
  resourceVersion: string;
  packageName: string;
  version: string | undefined;
  upgradeConstraintPolicy: string | undefined;
  approvedBundle: string | undefined;
  /** `spec.install.preflight.crdUpgradeSafety.enforcement`; undefined means Strict. */
  enforcement: string | undefined;
}

/** One field the rollback sets: its path, the value before (undefined: not set) and after. */
interface FieldChange {
  field: string;
  from: string | undefined;
  to: string;
}

/** The patch that rolls back, what it changes, and the patch that puts the previous values back. */
export interface RollbackPatch {
  /** The version range that selects the bundle. */
  pin: string;
  /** True when other releases of the same version match the pin too (build metadata or release). */
  ambiguous: boolean;
  changes: FieldChange[];
  /** JSON merge patch, with the resourceVersion precondition. */
  patch: Record<string, unknown>;
  /** JSON merge patch restoring the previous values (null deletes a field that was not set). */
  restore: Record<string, unknown>;
}

function record(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** The value at `keys` below `v`; undefined when some step is not an object. */
function at(v: unknown, ...keys: string[]): unknown {
  let cur = v;
  for (const k of keys) cur = record(cur)[k];
  return cur;
}

/** Reads the fields a rollback uses from a ClusterExtension as the API server returns it. */
export function readExtensionView(obj: KubeObject): Result<ExtensionView, string> {
  const name = obj.metadata.name ?? '';
  const catalog = record(at(obj['spec'], 'source', 'catalog'));
  const packageName = text(catalog['packageName']) ?? '';
  if (packageName === '') return err(`ClusterExtension ${JSON.stringify(name)} has no spec.source.catalog.packageName`);
  return ok({
    name,
    resourceVersion: obj.metadata.resourceVersion ?? '',
    packageName,
    version: text(catalog['version']),
    upgradeConstraintPolicy: text(catalog['upgradeConstraintPolicy']),
    approvedBundle: text(obj.metadata.annotations?.[APPROVED_BUNDLE_ANNOTATION]),
    enforcement: text(at(obj['spec'], 'install', 'preflight', 'crdUpgradeSafety', 'enforcement')),
  });
}

/** The exact version range of `bundle`: its version without build metadata. */
export function versionPin(bundle: ReleaseBundle): Result<{ pin: string; ambiguous: boolean }, string> {
  const v = parseSemver(bundle.version);
  if (!v.ok) return err(`bundle ${bundle.name} has version ${JSON.stringify(bundle.version)}, which is not semver (${v.error}); it cannot be pinned`);
  const pre = v.value.pre.length > 0 ? `-${v.value.pre.map((p) => p.str).join('.')}` : '';
  const pin = `${v.value.major}.${v.value.minor}.${v.value.patch}${pre}`;
  return ok({ pin, ambiguous: v.value.build.length > 0 || (bundle.release !== undefined && bundle.release !== '') });
}

/**
 * The patch that makes `ext` install `bundle`. Errors when the bundle is of another package
 * than the extension now names (the pin would select nothing of it) or cannot be pinned.
 */
export function rollbackPatch(ext: ExtensionView, bundle: ReleaseBundle): Result<RollbackPatch, string> {
  if (bundle.package !== ext.packageName) {
    return err(
      `the revision installed package ${JSON.stringify(bundle.package)} but ClusterExtension ${JSON.stringify(ext.name)} now names package ${JSON.stringify(ext.packageName)}`,
    );
  }
  if (ext.resourceVersion === '') return err(`ClusterExtension ${JSON.stringify(ext.name)} has no metadata.resourceVersion`);
  const pinned = versionPin(bundle);
  if (!pinned.ok) return pinned;
  const { pin, ambiguous } = pinned.value;
  const policy = UpgradeConstraintPolicy.SelfCertified;
  const changes: FieldChange[] = [
    { field: 'spec.source.catalog.version', from: ext.version, to: pin },
    { field: 'spec.source.catalog.upgradeConstraintPolicy', from: ext.upgradeConstraintPolicy, to: policy },
    { field: `metadata.annotations[${APPROVED_BUNDLE_ANNOTATION}]`, from: ext.approvedBundle, to: bundle.name },
  ];
  const patch = {
    metadata: { resourceVersion: ext.resourceVersion, annotations: { [APPROVED_BUNDLE_ANNOTATION]: bundle.name } },
    spec: { source: { catalog: { version: pin, upgradeConstraintPolicy: policy } } },
  };
  const restore = {
    metadata: { annotations: { [APPROVED_BUNDLE_ANNOTATION]: ext.approvedBundle ?? null } },
    spec: { source: { catalog: { version: ext.version ?? null, upgradeConstraintPolicy: ext.upgradeConstraintPolicy ?? null } } },
  };
  return ok({ pin, ambiguous, changes, patch, restore });
}
