/**
 * The data of `olmv1 status`. `StatusReport` is the `-o json|yaml` schema (docs/olmv1-status.md):
 * `schemaVersion` changes only with an incompatible change. Without a cluster version the report
 * is complete but for the verdict: version fields null, `versionError` says why.
 */
import { z } from 'zod';
import {
  evaluateGate,
  formatMinor,
  nextMinorVersion,
  removedApiUses,
  upgradeHoldOf,
  type ClusterMinor,
  type DeployedExtension,
  type ObjectIdentity,
} from '../../operator-controller/gating/index.ts';
import { HealthConditionType } from '../../shared/api/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import type { ObjectSetView } from '../../operator-controller/revisions/index.ts';

/** The schema version this build writes. */
export const STATUS_SCHEMA_VERSION = 1;

/** Exit codes of `olmv1 status` (docs/olmv1-status.md); undecidable: no cluster version while a bundle declares a maximum. */
export const STATUS_EXIT = { allowed: 0, blocked: 1, failed: 2, undecidable: 3 } as const;

const Condition = z.object({ status: z.string(), reason: z.string() });

/** `olmv1 status -o json`: see docs/olmv1-status.md. */
export const StatusReport = z.object({
  schemaVersion: z.literal(STATUS_SCHEMA_VERSION),
  cluster: z.object({
    /** `X.Y` the verdict starts from, and where it came from; null when unknown. */
    currentVersion: z.string().nullable(),
    versionSource: z.enum(['flag', 'ClusterVersion']).nullable(),
    nextVersion: z.string().nullable(),
    /** Why the current version is unknown (null when it is known). */
    versionError: z.string().nullable(),
  }),
  /** The Kubernetes minor the removed-API check is about (added within version 1). */
  kubernetes: z
    .object({
      /** `1.Y`; null when neither --kubernetes-version nor the API server's version gave one. */
      targetVersion: z.string().nullable(),
      targetSource: z.enum(['flag', 'server']).nullable(),
      error: z.string().nullable(),
    })
    .optional(),
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
      /** The `Healthy` condition (added within version 1: absent in documents of earlier builds). */
      healthy: Condition.nullable().optional(),
      deprecations: z.array(z.string()),
      maxOpenShiftVersion: z.string().nullable(),
      /** While resolution fails: the Progressing message and the ResolutionFailed Event's hints (added within version 1). */
      resolution: z.object({ message: z.string(), hints: z.array(z.string()) }).optional(),
      /** While another wait has an advice Event: its reason, the Progressing message's first line, the Event's hints (added within version 1). */
      advice: z.object({ reason: z.string(), message: z.string(), hints: z.array(z.string()) }).optional(),
      /**
       * Under BoxcutterRuntime: the ClusterObjectSet of the deployed revision (else of the newest),
       * its lifecycle state and its Available and Progressing (added within version 1).
       */
      objectSet: z
        .object({ name: z.string(), revision: z.number(), lifecycleState: z.string(), available: z.string(), progressing: z.string() })
        .optional(),
    }),
  ),
  verdict: z.object({
    upgradeable: z.boolean(),
    blockers: z.array(z.object({ extension: z.string(), bundle: z.string(), maxOpenShiftVersion: z.string() })),
    metadataErrors: z.array(z.string()),
    /** Objects of installed releases whose apiVersion kubernetes.targetVersion no longer serves (added within version 1). */
    removedApis: z
      .array(
        z.object({
          extension: z.string(),
          kind: z.string(),
          namespace: z.string().nullable(),
          name: z.string(),
          apiVersion: z.string(),
          removedIn: z.string(),
          replacement: z.string(),
        }),
      )
      .optional(),
    /** Extensions whose operator says Upgradeable=False, with its message; absent when none (added within version 1). */
    notUpgradeable: z.array(z.object({ extension: z.string(), message: z.string() })).optional(),
  }),
});
/** The inferred type of StatusReport. */
export type StatusReport = z.infer<typeof StatusReport>;

/** The cluster's current version, or why it is not known. */
export type ClusterVersionInfo = { ok: true; current: ClusterMinor; source: 'flag' | 'ClusterVersion' } | { ok: false; error: string };

/** What the report is built from (already read from the cluster). */
export interface StatusInput {
  version: ClusterVersionInfo;
  catalogs: readonly KubeObject[];
  extensions: readonly KubeObject[];
  /** The latest deployed release per extension name (absent: nothing deployed). */
  deployed: ReadonlyMap<string, DeployedExtension>;
  /** Extensions whose release records could not be read. */
  unreadable: readonly string[];
  /** events.k8s.io Events with one of the ADVICE_REASONS (none: not read, or not readable). */
  adviceEvents?: readonly KubeObject[];
  /** The Kubernetes minor to check removed APIs against, or why there is none (absent: not checked). */
  kubernetes?: KubernetesTargetInfo;
  /** The objects (identities) of each extension's deployed release. */
  objects?: ReadonlyMap<string, readonly ObjectIdentity[]>;
  /** The ClusterObjectSet shown for each extension whose revisions are ClusterObjectSets. */
  objectSets?: ReadonlyMap<string, ObjectSetView>;
}

/** The Kubernetes minor an upgrade reaches, or why it is not known. */
export type KubernetesTargetInfo = { ok: true; target: ClusterMinor; source: 'flag' | 'server' } | { ok: false; error: string };

/** When an Event was last seen: its series' last observation, else its time, else its creation. */
function eventTime(e: KubeObject): string {
  const series = (e['series'] as { lastObservedTime?: unknown } | undefined)?.lastObservedTime;
  const at = [series, e['eventTime'], e.metadata.creationTimestamp].find((t) => typeof t === 'string' && t !== '');
  return typeof at === 'string' ? at : '';
}

/** operator-controller's Events that add advice to a condition's upstream text: its first line's end, then lines of advice. */
export const ADVICE_REASONS = ['ResolutionFailed', 'InstallerMissing', 'PreAuthorizationFailed', 'WatchNamespaceRequired'] as const;

/** The newest advice Event about `name` that matches the current Progressing message (an earlier failure's is not shown). */
function adviceOf(
  name: string,
  message: string | undefined,
  events: readonly KubeObject[],
): { reason: string; message: string; hints: string[] } | undefined {
  const line = message?.split('\n', 1)[0] ?? '';
  if (line === '') return undefined;
  const about = events
    .filter((e) => {
      const r = e['regarding'] as { kind?: unknown; name?: unknown } | undefined;
      const [note, reason] = [e['note'], e['reason']];
      if (r?.kind !== 'ClusterExtension' || r.name !== name || typeof note !== 'string' || typeof reason !== 'string') return false;
      const first = note.split('\n', 1)[0] ?? '';
      if (reason === 'ResolutionFailed') return first === line;
      return (ADVICE_REASONS as readonly string[]).includes(reason) && first !== '' && line.endsWith(first);
    })
    .sort((a, b) => (eventTime(a) < eventTime(b) ? 1 : eventTime(a) > eventTime(b) ? -1 : 0));
  const e = about[0];
  return e === undefined ? undefined : { reason: e['reason'] as string, message: line, hints: (e['note'] as string).split('\n').slice(1) };
}

/** The `message` of condition `type` of `obj`, if any. */
function conditionMessage(obj: KubeObject, type: string): string | undefined {
  const c = conditions(obj).find((x) => x.type === type) as { message?: unknown } | undefined;
  return typeof c?.message === 'string' ? c.message : undefined;
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

// Stands in for an unknown version: the declared maxima and metadata errors do not depend on
// the current version, and the blockers computed against it are discarded.
const NO_VERSION: ClusterMinor = { major: 0n, minor: 0n };

/** Builds the report; the verdict is pkg/operator-controller/gating's over the deployed releases. */
export function buildStatusReport(input: StatusInput): StatusReport {
  const { version } = input;
  const gate = evaluateGate(
    version.ok ? version.current : NO_VERSION,
    [...input.deployed.values()],
    input.unreadable.map((n) => `error returning the last deployed release for ${n}`),
  );
  // Without a version, the answer is still known when nothing declares a maximum (nor fails to say).
  const versionIndependent = Object.keys(gate.maxVersions).length === 0 && gate.errors.length === 0;
  const verdict = version.ok ? gate : { ...gate, upgradeable: versionIndependent, blockers: [] };
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
    const row = {
      name,
      package: str(source.packageName) ?? '',
      installedBundle: str(install?.name),
      installedVersion: str(install?.version),
      channels: Array.isArray(source.channels) ? source.channels.filter((c): c is string => typeof c === 'string') : [],
      versionRange: str(source.version),
      installed: cond(e, 'Installed'),
      progressing: cond(e, 'Progressing'),
      healthy: cond(e, HealthConditionType.Healthy),
      deprecations,
      maxOpenShiftVersion: verdict.maxVersions[name] ?? null,
    };
    const advice = adviceOf(name, conditionMessage(e, 'Progressing'), input.adviceEvents ?? []);
    const set = input.objectSets?.get(name);
    const withSet = set === undefined ? row : { ...row, objectSet: { ...set } };
    if (advice === undefined) return withSet;
    const { reason, ...shown } = advice;
    return reason === 'ResolutionFailed' ? { ...withSet, resolution: shown } : { ...withSet, advice };
  });
  const kube = input.kubernetes;
  const removedApis =
    kube?.ok === true
      ? [...(input.objects ?? new Map<string, readonly ObjectIdentity[]>())]
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .flatMap(([name, objects]) => removedApiUses(name, objects, kube.target))
          .map((u) => ({ ...u, namespace: u.namespace ?? null }))
      : [];
  const notUpgradeable = [...input.extensions].sort(byName).flatMap((e) => upgradeHoldOf(e.metadata.name ?? '', e.metadata.annotations) ?? []);
  const clear = removedApis.length === 0 && notUpgradeable.length === 0;
  return {
    schemaVersion: STATUS_SCHEMA_VERSION,
    cluster: version.ok
      ? {
          currentVersion: formatMinor(version.current),
          versionSource: version.source,
          nextVersion: formatMinor(nextMinorVersion(version.current)),
          versionError: null,
        }
      : { currentVersion: null, versionSource: null, nextVersion: null, versionError: version.error },
    ...(kube === undefined
      ? {}
      : {
          kubernetes: kube.ok
            ? { targetVersion: formatMinor(kube.target), targetSource: kube.source, error: null }
            : { targetVersion: null, targetSource: null, error: kube.error },
        }),
    catalogs,
    extensions,
    verdict: {
      upgradeable: verdict.upgradeable && clear,
      blockers: verdict.blockers.map((b) => ({ extension: b.extension, bundle: b.bundle, maxOpenShiftVersion: b.maxVersion })),
      metadataErrors: verdict.errors,
      ...(kube === undefined ? {} : { removedApis }),
      ...(notUpgradeable.length === 0 ? {} : { notUpgradeable }),
    },
  };
}

/** The exit code a report stands for (see {@link STATUS_EXIT}). */
export function statusExitCode(report: StatusReport): number {
  const { removedApis = [], notUpgradeable = [] } = report.verdict;
  if (removedApis.length > 0 || notUpgradeable.length > 0) return STATUS_EXIT.blocked;
  if (report.cluster.currentVersion === null) return report.verdict.upgradeable ? STATUS_EXIT.allowed : STATUS_EXIT.undecidable;
  return report.verdict.upgradeable ? STATUS_EXIT.allowed : STATUS_EXIT.blocked;
}
