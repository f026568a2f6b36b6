/**
 * What installing the picked bundle of an upgrade changes, as `olmv1 upgrade plan` shows it:
 * the bundle rendered with the options the render step makes (render/features.ts: the same
 * function and the gates operator-controller runs with), owner-labelled and pruned as that step
 * does, then compared with the deployed release, the live CRDs, `olm.maxOpenShiftVersion`, the
 * update policy and the maintenance window. Reads the cluster through the ports given (the
 * CLI's user).
 */
import { describeObject, pruneUnknownFields, withOwnerLabels } from '../applier/index.ts';
import type { KubeObject, RegistryV1Bundle } from '../bundle/index.ts';
import { bundleProperties } from '../bundlepull/index.ts';
import { storedObjectsOptIn } from '../crdupgrade/index.ts';
import type { Release } from '../release/index.ts';
import { extensionRenderOptions, render, renderedClusterProxy, type RenderFailure, type RenderFeatures } from '../render/index.ts';
import { decideUpgrade, policySetting } from '../upgradepolicy/index.ts';
import { CrdUpgradeSafetyEnforcement, type ClusterExtension } from '../../shared/api/index.ts';
import { err, ok, wrapError, type Result } from '../../shared/errors/index.ts';
import type { KubeClient, OpenApiSchemas } from '../../shared/kube/index.ts';
import { objectDiff, type ObjectDiff } from './object-diff.ts';
import { formatPermissionDelta, permissionDelta, type PermissionDelta } from './permission-delta.ts';
import { crdVerdicts, maxVersionVerdict, type ClusterVersionReading, type PlanCrdSafety, type PlanMaxVersion } from './verdicts.ts';
import { planWindow, type PlanWindow } from './window.ts';

/** What installing the picked bundle changes. */
export interface PlanChanges {
  objects: ObjectDiff;
  permissions: PermissionDelta & { summary: string };
  crdUpgradeSafety: PlanCrdSafety;
  maxOpenShiftVersion: PlanMaxVersion;
  droppedFields: { object: string; paths: string[] }[];
}

/** What the update policy does with the picked bundle (pkg/operator-controller/upgradepolicy decides). */
export interface PlanPolicy {
  /** Automatic, Manual or AutomaticPatch (an unreadable annotation value counts as Manual). */
  policy: string;
  /** `install`: operator-controller installs it now; `hold`: it waits for an approval naming it. */
  decision: 'install' | 'hold';
  reason: string;
  /** The approved-bundle annotation, '' when absent. */
  approvedBundle: string;
}

/** What the comparison reads of the cluster. */
interface ChangesPorts {
  /** The live CRDs and their stored objects. */
  client: KubeClient;
  /** The API server's schemas, to drop the fields they do not declare, as the render step does. */
  schemas: Pick<OpenApiSchemas, 'schemaFor'>;
  /** The cluster's version, for `olm.maxOpenShiftVersion` (read once the bundle renders). */
  clusterVersion: () => Promise<ClusterVersionReading>;
}

/** The upgrade to compare. */
interface ChangesRequest {
  /** The ClusterExtension as read (annotations, status) and parsed. */
  ce: { object: KubeObject; extension: ClusterExtension };
  /** Its deployed release. */
  release: Release;
  pick: { bundle: string; version: string };
  /** The picked bundle, pulled. */
  bundle: RegistryV1Bundle;
  /** The rendering switches of the gates operator-controller runs with (render/features.ts). */
  features: RenderFeatures;
  /** When the maintenance window is judged (ms since the epoch). */
  now: number;
  /** Told once the bundle rendered, before the comparison reads the cluster. */
  onRendered?: () => void;
}

/** The comparison. */
interface PlannedChanges {
  changes: PlanChanges;
  policy: PlanPolicy;
  /** Absent when no window is known to apply (decision 0122). */
  window?: PlanWindow;
  /** The objects the controller would apply: rendered, owner-labelled and pruned. */
  objects: KubeObject[];
}

/**
 * Renders the picked bundle as the render step does and compares it with what is deployed. A
 * bundle that does not render is a value: the failure the render step reports.
 * @throws Error (with cause) when a schema or a live CRD cannot be read.
 */
export async function planChanges(ports: ChangesPorts, r: ChangesRequest): Promise<Result<PlannedChanges, RenderFailure>> {
  const extension = r.ce.object.metadata.name ?? '';
  const spec = r.ce.extension.spec;
  const installedObjects = r.release.manifest.objects();
  // The cluster-wide proxy the controller sets, as the deployed release has it (decision 0132).
  const rendered = render(r.bundle, extensionRenderOptions(spec, r.features, renderedClusterProxy(installedObjects)));
  if (!rendered.ok) return err(rendered.error);
  r.onRendered?.();
  const objects: KubeObject[] = [];
  const droppedFields: PlanChanges['droppedFields'] = [];
  for (const obj of withOwnerLabels(rendered.value, extension)) {
    let schema;
    try {
      schema = await ports.schemas.schemaFor(obj.apiVersion, obj.kind);
    } catch (e) {
      throw wrapError(`error reading the API schema of ${obj.apiVersion} ${obj.kind}`, e);
    }
    const pruned = pruneUnknownFields(obj, schema);
    objects.push(pruned.object);
    if (pruned.dropped.length > 0) droppedFields.push({ object: describeObject(obj), paths: pruned.dropped });
  }
  const delta = permissionDelta(installedObjects, objects);
  const changes: PlanChanges = {
    objects: objectDiff(installedObjects, objects),
    permissions: { ...delta, summary: formatPermissionDelta(delta) },
    crdUpgradeSafety: await crdVerdicts(
      ports.client,
      objects,
      spec.install?.preflight?.crdUpgradeSafety.enforcement ?? CrdUpgradeSafetyEnforcement.Strict,
      storedObjectsOptIn(r.ce.object.metadata.annotations),
    ),
    maxOpenShiftVersion: maxVersionVerdict(extension, r.release, r.pick.bundle, bundleProperties(r.bundle), await ports.clusterVersion()),
    droppedFields,
  };
  const setting = policySetting(r.ce.object.metadata.annotations);
  const decision = decideUpgrade(setting, {
    from: r.release.bundle,
    to: { name: r.pick.bundle, version: r.pick.version },
    gainedPermissions: formatPermissionDelta({ gained: delta.gained, lost: [] }),
  });
  const policy: PlanPolicy = {
    policy: setting.policy,
    decision: decision.proceed ? 'install' : 'hold',
    reason: decision.proceed
      ? decision.approved
        ? `approved: the approval names ${r.pick.bundle}`
        : `allowed by the update policy ${setting.policy}`
      : decision.reasons.join('; '),
    approvedBundle: setting.approvedBundle,
  };
  const window = planWindow(r.ce.object, r.pick.bundle, r.now);
  return ok({ changes, policy, ...(window === undefined ? {} : { window }), objects });
}
