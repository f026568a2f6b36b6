/**
 * Switching runtimes (decision 0125), before the revisions are read, through the Applier port's
 * `migrate`:
 *
 * - under the BoxcutterRuntime, an extension whose release is recorded in Helm release records
 *   and has no ClusterObjectSet yet gets revision 1 made from its deployed record, marked
 *   Succeeded, so its objects are adopted where they stand (uids kept, nothing re-created), as
 *   upstream's MigrateStorage step does; the records stay;
 * - under the Helm runtime, where the ClusterObjectSet kind is served, an extension whose status
 *   still lists active revisions (the BoxcutterRuntime wrote them) gets its installed revision as
 *   the deployed release record, and the revisions are let go without their objects,
 *   `status.activeRevisions` cleared; upstream has no way back. Any other extension costs
 *   nothing here (no request).
 *
 * A failure is retried, in upstream's words (`migrating storage: ...`).
 */
import type { Applier } from '../applier/index.ts';
import type { StepOutcome, Step } from '../../shared/controller/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import { validatedStep } from './phases.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { setProgressingError, statusOf } from './status.ts';

export function migrateStep(ports: { applier: Pick<Applier, 'migrate'> }): Step<ExtensionState> {
  return validatedStep('migrate', async (state): Promise<StepOutcome> => {
    const { ce } = state;
    const owner = {
      name: ce.metadata.name,
      uid: ce.metadata.uid ?? '',
      installNamespace: ce.spec.namespace,
      progressDeadlineMinutes: ce.spec.progressDeadlineMinutes,
      activeRevisions: (ce.status?.activeRevisions ?? []).length,
    };
    try {
      const outcome = await ports.applier.migrate(owner, state.signal);
      if (outcome === 'none') return undefined;
      state.log.info({ outcome }, 'extension moved between release records and ClusterObjectSet revisions');
      if (outcome === 'released') delete statusOf(ce).activeRevisions;
    } catch (err) {
      const wrapped = new Error(`migrating storage: ${errorMessage(err)}`, { cause: err });
      setProgressingError(ce, wrapped);
      throw wrapped;
    }
    return undefined;
  });
}
