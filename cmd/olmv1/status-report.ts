/**
 * The data of `olmv1 status`: catalogs, extensions and the cluster-upgrade verdict, built from
 * the cluster's objects and release records. `StatusReport` is the `-o json|yaml` schema
 * (docs/olmv1-status.md); `schemaVersion` changes only with an incompatible change, and fields
 * are only ever added within a version.
 */
import { z } from 'zod';
import { evaluateGate, formatMinor, nextMinorVersion, type ClusterMinor, type DeployedExtension } from '../../pkg/gating/index.ts';
import type { KubeObject } from '../../pkg/kube/index.ts';

/** The schema version this build writes. */
export const STATUS_SCHEMA_VERSION = 1;

const Condition = z.object({ status: z.string(), reason: z.string() });

/** `olmv1 status -o json`: see docs/olmv1-status.md. */
export const StatusReport = z.object({
  schemaVersion: z.literal(STATUS_SCHEMA_VERSION),
  cluster: z.object({
    /** `X.Y` the verdict starts from, and where it came from. */
    currentVersion: z.string(),
    versionSource: z.enum(['flag', 'ClusterVersion']),
    nextVersion: z.string(),
  }),
  catalogs: z.array(
    z.object({
      name: z.string(),
      serving: z.boolean(),
      priority: z.number(),
      resolvedRef: z.string().nullable(),
      lastUnpacked: z.string().nullable(),
      contentURL: z.string().nullable(),
    }),
  ),
  extensions: z.array(
    z.object({
      name: z.string(),
      package: z.string(),
      installedBundle: z.string().nullable(),
      installedVersion: z.string().nullable(),
      channels: z.array(z.string()),
      versionRange: z.string().nullable(),
      installed: Condition.nullable(),
      progressing: Condition.nullable(),
      deprecations: z.array(z.string()),
      maxOpenShiftVersion: z.string().nullable(),
    }),
  ),
  verdict: z.object({
    upgradeable: z.boolean(),
    blockers: z.array(z.object({ extension: z.string(), bundle: z.string(), maxOpenShiftVersion: z.string() })),
    metadataErrors: z.array(z.string()),
  }),
});
/** The inferred type of StatusReport. */
export type StatusReport = z.infer<typeof StatusReport>;

/** What the report is built from (already read from the cluster). */
export interface StatusInput {
  current: ClusterMinor;
  versionSource: 'flag' | 'ClusterVersion';
  catalogs: readonly KubeObject[];
  extensions: readonly KubeObject[];
  /** The latest deployed release per extension name (absent: nothing deployed). */
  deployed: ReadonlyMap<string, DeployedExtension>;
  /** Extensions whose release records could not be read. */
  unreadable: readonly string[];
}

interface Cond {
  type?: string;
  status?: string;
  reason?: string;
}

function conditions(obj: KubeObject): Cond[] {
  const list = (obj.status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(list) ? (list as Cond[]) : [];
}

function cond(obj: KubeObject, type: string): { status: string; reason: string } | null {
  const c = conditions(obj).find((x) => x.type === type);
  return c === undefined ? null : { status: c.status ?? '', reason: c.reason ?? '' };
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

const byName = (a: KubeObject, b: KubeObject): number =>
  (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : (a.metadata.name ?? '') > (b.metadata.name ?? '') ? 1 : 0;

/** Builds the report; the verdict is pkg/gating's over the deployed releases. */
export function buildStatusReport(input: StatusInput): StatusReport {
  const verdict = evaluateGate(
    input.current,
    [...input.deployed.values()],
    input.unreadable.map((n) => `error returning the last deployed release for ${n}`),
  );
  const catalogs = [...input.catalogs].sort(byName).map((c) => {
    const spec = (c.spec ?? {}) as { priority?: unknown };
    const status = (c.status ?? {}) as { resolvedSource?: { image?: { ref?: unknown } }; lastUnpacked?: unknown; urls?: { base?: unknown } };
    return {
      name: c.metadata.name ?? '',
      serving: cond(c, 'Serving')?.status === 'True',
      priority: typeof spec.priority === 'number' ? spec.priority : 0,
      resolvedRef: str(status.resolvedSource?.image?.ref),
      lastUnpacked: str(status.lastUnpacked),
      contentURL: str(status.urls?.base),
    };
  });
  const extensions = [...input.extensions].sort(byName).map((e) => {
    const name = e.metadata.name ?? '';
    const source =
      ((e.spec ?? {}) as { source?: { catalog?: { packageName?: unknown; channels?: unknown; version?: unknown } } }).source?.catalog ?? {};
    const install = ((e.status ?? {}) as { install?: { bundle?: { name?: unknown; version?: unknown } } }).install?.bundle;
    const deprecations = conditions(e)
      .filter((c) => c.type !== undefined && c.type.endsWith('Deprecated') && c.status === 'True')
      .map((c) => c.type as string);
    return {
      name,
      package: str(source.packageName) ?? '',
      installedBundle: str(install?.name),
      installedVersion: str(install?.version),
      channels: Array.isArray(source.channels) ? source.channels.filter((c): c is string => typeof c === 'string') : [],
      versionRange: str(source.version),
      installed: cond(e, 'Installed'),
      progressing: cond(e, 'Progressing'),
      deprecations,
      maxOpenShiftVersion: verdict.maxVersions[name] ?? null,
    };
  });
  return {
    schemaVersion: STATUS_SCHEMA_VERSION,
    cluster: {
      currentVersion: formatMinor(input.current),
      versionSource: input.versionSource,
      nextVersion: formatMinor(nextMinorVersion(input.current)),
    },
    catalogs,
    extensions,
    verdict: {
      upgradeable: verdict.upgradeable,
      blockers: verdict.blockers.map((b) => ({ extension: b.extension, bundle: b.bundle, maxOpenShiftVersion: b.maxVersion })),
      metadataErrors: verdict.errors,
    },
  };
}
