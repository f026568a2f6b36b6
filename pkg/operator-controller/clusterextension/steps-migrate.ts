/**
 * Switching runtimes (decision 0125), before the revisions are read:
 *
 * - under the BoxcutterRuntime, an extension whose release is recorded in Helm release records
 *   and has no ClusterObjectSet yet gets revision 1 made from its deployed record, marked
 *   Succeeded, so its objects are adopted where they stand (uids kept, nothing re-created), as
 *   upstream's MigrateStorage step does; the records stay;
 * - under the Helm runtime, where the ClusterObjectSet kind is served, an extension whose status
 *   still lists active revisions (the BoxcutterRuntime wrote them) gets its installed revision as
 *   the deployed release record, and the revisions are let go without their objects
 *   (boxcutter-unmigrate.ts), `status.activeRevisions` cleared; upstream has no way back. Any
 *   other extension costs nothing here (no request).
 *
 * A failure is retried, in upstream's words (`migrating storage: ...`).
 */
import { migrateFromReleases, migrateToReleases, type UnmigrationPorts } from '../applier/index.ts';
import type { StepOutcome, Step } from '../../shared/controller/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import type { KubeClient } from '../../shared/kube/index.ts';
import type { ReleaseStore } from '../release/index.ts';
import { validatedStep } from './phases.ts';
import type { ExtensionState, ValidatedState } from './pipeline-state.ts';
import { setProgressingError, statusOf } from './status.ts';

/** What the migrate step uses: operator-controller's own client, and the records it migrates from or to. */
export type MigratePorts =
  /** BoxcutterRuntime: Helm release records into revisions. */
  | { client: KubeClient; fromReleases: Pick<ReleaseStore, 'history'> }
  /** Helm runtime: revisions back into release records. */
  | { client: KubeClient; toReleases: Omit<UnmigrationPorts, 'client'> };

export function migrateStep(ports: MigratePorts): Step<ExtensionState> {
  return validatedStep('migrate', (state) => migrate(ports, state));
}

async function migrate(ports: MigratePorts, state: ValidatedState): Promise<StepOutcome> {
  const { ce } = state;
  const owner = {
    name: ce.metadata.name,
    uid: ce.metadata.uid ?? '',
    installNamespace: ce.spec.namespace,
    progressDeadlineMinutes: ce.spec.progressDeadlineMinutes,
  };
  if (!('fromReleases' in ports) && (ce.status?.activeRevisions ?? []).length === 0) return undefined;
  try {
    const outcome =
      'fromReleases' in ports
        ? await migrateFromReleases({ client: ports.client, releases: ports.fromReleases }, owner, state.signal)
        : await migrateToReleases({ client: ports.client, ...ports.toReleases }, owner, state.signal);
    if (outcome !== 'none') state.log.info({ outcome }, 'extension moved between release records and ClusterObjectSet revisions');
    if (!('fromReleases' in ports)) delete statusOf(ce).activeRevisions;
  } catch (err) {
    const wrapped = new Error(`migrating storage: ${errorMessage(err)}`, { cause: err });
    setProgressingError(ce, wrapped);
    throw wrapped;
  }
  return undefined;
}
