/**
 * Why `olmv1 release rollback` (and the console's Roll back) refuses an extension whose
 * revisions are ClusterObjectSets, and the pin that goes back instead. Pure.
 */
import type { Release } from '../../operator-controller/release/index.ts';
import { chooseRollbackTarget, readExtensionView, rollbackPatch } from '../../operator-controller/rollback/index.ts';
import { APPROVED_BUNDLE_ANNOTATION, UpgradeConstraintPolicy } from '../../shared/api/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';

/** Text that goes inside a single-quoted shell word as it is. */
const SHELL_SAFE = /^[\w.,:;{}"@/+=-]*$/;

/**
 * The refusal for extension `ce` (the ClusterExtension as read) with `history` (its revisions,
 * newest first) when asked for `revision` (undefined: the one a rollback would choose). When
 * that revision exists and its bundle can be pinned, the commands name its version and bundle
 * exactly (the patch a rollback would write, without its resourceVersion); else a placeholder.
 */
export function objectSetRollbackRefusal(ce: KubeObject, history: readonly Release[], revision: number | undefined): string {
  const extension = ce.metadata.name ?? '';
  const chosen = chooseRollbackTarget(extension, history, revision);
  const view = readExtensionView(ce);
  const target = chosen.ok ? chosen.value.target : undefined;
  const patched = target !== undefined && view.ok ? rollbackPatch(view.value, target.bundle) : undefined;
  const policy = UpgradeConstraintPolicy.SelfCertified;
  let pin = 'VERSION';
  let patch: unknown = { spec: { source: { catalog: { version: pin, upgradeConstraintPolicy: policy } } } };
  if (target !== undefined && patched?.ok === true) {
    const exact = {
      metadata: { annotations: { [APPROVED_BUNDLE_ANNOTATION]: target.bundle.name } },
      spec: { source: { catalog: { version: patched.value.pin, upgradeConstraintPolicy: policy } } },
    };
    // Catalog text is not trusted into a shell command: anything unusual keeps the placeholder.
    if (SHELL_SAFE.test(JSON.stringify(exact))) {
      pin = patched.value.pin;
      patch = exact;
    }
  }
  const lead =
    pin === 'VERSION' || target === undefined
      ? `To go back, pin the version of the revision you want instead (see "olmv1 release history ${extension}"):`
      : `To go back to revision ${target.revision} (${target.bundle.name}), pin its version instead:`;
  return [
    `refusing to roll back ${JSON.stringify(extension)}: its revisions are ClusterObjectSets (operator-controller runs with BoxcutterRuntime), and a rollback works from Helm release records. Nothing was changed.`,
    lead,
    `  kubectl patch clusterextension ${extension} --type=merge -p '${JSON.stringify(patch)}'`,
    'or',
    `  olmv1 update ${extension} --version ${pin} --upgrade-constraint-policy ${policy}`,
  ].join('\n');
}
