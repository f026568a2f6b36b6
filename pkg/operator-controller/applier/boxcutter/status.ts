/**
 * What a ClusterExtension's ClusterObjectSets say (BoxcutterRuntime), as upstream's steps read
 * them (internal/operator-controller/controllers/boxcutter_reconcile_steps.go): archived
 * revisions are skipped; of the others, oldest first, the newest whose `Succeeded` is True is
 * installed, every other one is rolling out. `status.activeRevisions` lists the installed one
 * (its name only) and then each rolling out one with its `Available` and `Progressing`
 * conditions. Also the revisions as the port's release records (release history, the
 * deployed release). Pure.
 */
import { CLUSTER_EXTENSION, LifecycleState, OWNER_NAME_LABEL, ObjectSetConditionType, type Condition } from '../../../shared/api/index.ts';
import { Manifest, ReleaseStatus, type Release, type ReleaseSummary } from '../../release/index.ts';
import { RevisionAnnotation, type ObjectSetManifest } from './revision.ts';
import type { KubeObject } from '../../../shared/kube/index.ts';
import type { Rollout } from '../port.ts';

type SetCondition = NonNullable<NonNullable<ObjectSetManifest['status']>['conditions']>[number];

/** The installed revision and those rolling out, oldest first. */
interface RevisionStates {
  installed?: ObjectSetManifest | undefined;
  rollingOut: ObjectSetManifest[];
}

function condition(set: ObjectSetManifest, type: string): SetCondition | undefined {
  return set.status?.conditions?.find((c) => c.type === type);
}

function succeeded(set: ObjectSetManifest): boolean {
  return condition(set, ObjectSetConditionType.Succeeded)?.status === 'True';
}

/** The installed and rolling-out revisions of `sets` (any order). */
export function revisionStates(sets: readonly ObjectSetManifest[]): RevisionStates {
  const states: RevisionStates = { rollingOut: [] };
  for (const set of [...sets].sort((a, b) => a.spec.revision - b.spec.revision)) {
    if (set.spec.lifecycleState === LifecycleState.Archived) continue;
    if (succeeded(set)) states.installed = set;
    else states.rollingOut.push(set);
  }
  return states;
}

/** One `status.activeRevisions` entry of a ClusterExtension. */
interface ActiveRevision {
  name: string;
  conditions?: Condition[];
}

/**
 * `status.activeRevisions` of the extension at `generation` (each mirrored condition's
 * observedGeneration is the extension's, as upstream sets it): the installed revision by name,
 * then each revision rolling out with its Available and Progressing conditions (none when it
 * has neither).
 */
export function activeRevisions(sets: readonly ObjectSetManifest[], generation: number): ActiveRevision[] {
  const { installed, rollingOut } = revisionStates(sets);
  const out: ActiveRevision[] = installed === undefined ? [] : [{ name: installed.metadata.name }];
  for (const set of rollingOut) {
    const conditions = [ObjectSetConditionType.Available, ObjectSetConditionType.Progressing]
      .map((type) => condition(set, type))
      .filter((c): c is SetCondition => c !== undefined)
      .map((c) => ({ ...(c as Condition), observedGeneration: generation }));
    out.push(conditions.length === 0 ? { name: set.metadata.name } : { name: set.metadata.name, conditions });
  }
  return out;
}

/** Progressing reasons that end a rollout without success. */
const FAILED_REASONS = new Set(['Blocked', 'ProgressDeadlineExceeded']);

/**
 * The release status of `set` among `sets`: the installed revision is deployed, other
 * succeeded or archived ones superseded, one whose Progressing is False (Blocked, past its
 * deadline) failed, any other pending (an upgrade when an older revision succeeded).
 */
function statusOf(set: ObjectSetManifest, states: RevisionStates, sets: readonly ObjectSetManifest[]): ReleaseStatus {
  if (states.installed === set) return ReleaseStatus.Deployed;
  if (set.spec.lifecycleState === LifecycleState.Archived || succeeded(set)) return ReleaseStatus.Superseded;
  const progressing = condition(set, ObjectSetConditionType.Progressing);
  if (progressing?.status === 'False' && FAILED_REASONS.has(progressing.reason)) return ReleaseStatus.Failed;
  const earlierSuccess = sets.some((s) => s.spec.revision < set.spec.revision && (succeeded(s) || s.spec.lifecycleState === LifecycleState.Archived));
  return earlierSuccess ? ReleaseStatus.PendingUpgrade : ReleaseStatus.PendingInstall;
}

/** The bundle a revision's annotations name. */
function bundleOf(set: ObjectSetManifest): Release['bundle'] {
  const a = set.metadata.annotations ?? {};
  const release = a[RevisionAnnotation.bundleRelease];
  const digestRef = a[RevisionAnnotation.digestReference];
  return {
    package: a[RevisionAnnotation.packageName] ?? '',
    name: a[RevisionAnnotation.bundleName] ?? '',
    version: a[RevisionAnnotation.bundleVersion] ?? '',
    ...(release === undefined ? {} : { release }),
    image: a[RevisionAnnotation.bundleReference] ?? '',
    ...(digestRef === undefined ? {} : { digestRef }),
  };
}

/** The `olm.properties` annotation as a list ([] when absent or not a JSON array). */
function propertiesOf(set: ObjectSetManifest): unknown[] {
  const text = set.metadata.annotations?.[RevisionAnnotation.properties];
  if (text === undefined) return [];
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}

/**
 * Revision `set` as a release record without its objects. `sets` are all of the extension's
 * revisions (they decide the status). The description is the revision's Progressing message;
 * lastDeployed is when it succeeded, firstDeployed when it was created.
 */
export function releaseSummaryOf(set: ObjectSetManifest, sets: readonly ObjectSetManifest[]): ReleaseSummary {
  const states = revisionStates(sets);
  const owner = set.metadata.ownerReferences?.find((o) => o.kind === CLUSTER_EXTENSION.kind);
  const done = condition(set, ObjectSetConditionType.Succeeded);
  const progressing = condition(set, ObjectSetConditionType.Progressing);
  const created = set.metadata.creationTimestamp;
  return {
    extension: set.metadata.labels?.[OWNER_NAME_LABEL] ?? owner?.name ?? '',
    extensionUID: owner?.uid ?? '',
    revision: set.spec.revision,
    status: statusOf(set, states, sets),
    bundle: bundleOf(set),
    properties: propertiesOf(set),
    description: progressing?.message ?? done?.message ?? '',
    ...(created === undefined ? {} : { firstDeployed: created }),
    ...(done?.status === 'True' ? { lastDeployed: done.lastTransitionTime } : {}),
    objectSet: set.metadata.name,
  };
}

/** Revision `set` as a release record holding `objects` (its objects in phase order). */
export function releaseOf(set: ObjectSetManifest, sets: readonly ObjectSetManifest[], objects: readonly KubeObject[]): Release {
  return { ...releaseSummaryOf(set, sets), manifest: Manifest.ofObjects(objects) };
}

/** The deployed release of `sets` (the installed revision) without its objects, or undefined. */
export function deployedSummary(sets: readonly ObjectSetManifest[]): ReleaseSummary | undefined {
  const installed = revisionStates(sets).installed;
  return installed === undefined ? undefined : releaseSummaryOf(installed, sets);
}

/** The newest revision of `sets` that is not archived (rolling out or installed) without its objects, or undefined. */
export function newestSummary(sets: readonly ObjectSetManifest[]): ReleaseSummary | undefined {
  const { installed, rollingOut } = revisionStates(sets);
  const newest = [...rollingOut, ...(installed === undefined ? [] : [installed])].sort((a, b) => b.spec.revision - a.spec.revision)[0];
  return newest === undefined ? undefined : releaseSummaryOf(newest, sets);
}

/**
 * The extension's status from its revisions, as upstream's Boxcutter apply step writes it: the
 * installed revision's Available and Progressing mirrored, then the newest rolling-out one's
 * Progressing; `status.activeRevisions`; and, when nothing is installed, Installed's reason:
 * Failed when no revision rolls out or the newest one is Retrying (an error), Absent otherwise.
 */
export function rolloutOf(sets: readonly ObjectSetManifest[], generation: number): Rollout {
  const states = revisionStates(sets);
  const at = (c: SetCondition | undefined): Condition[] => (c === undefined ? [] : [{ ...(c as Condition), observedGeneration: generation }]);
  const { installed, rollingOut } = states;
  const newest = rollingOut.at(-1);
  const mirrored = [
    ...(installed === undefined
      ? []
      : [...at(condition(installed, ObjectSetConditionType.Available)), ...at(condition(installed, ObjectSetConditionType.Progressing))]),
    ...(newest === undefined ? [] : at(condition(newest, ObjectSetConditionType.Progressing))),
  ];
  const retrying = newest !== undefined && condition(newest, ObjectSetConditionType.Progressing)?.reason === 'Retrying';
  return {
    installed: installed === undefined ? undefined : releaseSummaryOf(installed, sets),
    notInstalledReason: newest === undefined || retrying ? 'Failed' : 'Absent',
    mirrored,
    activeRevisions: activeRevisions(sets, generation),
  };
}
