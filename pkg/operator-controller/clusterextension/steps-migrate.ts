/**
 * BoxcutterRuntime only: before the revisions are read, an extension whose release is recorded
 * in Helm release records and has no ClusterObjectSet yet gets revision 1 made from its deployed
 * record, marked Succeeded, so its objects are adopted where they stand (uids kept, nothing
 * re-created), as upstream's MigrateStorage step does. The records stay (switching back reads
 * them). A failure is retried, in upstream's words (`migrating storage: ...`).
 */
import { migrateFromReleases } from '../applier/index.ts';
import type { StepOutcome, Step } from '../../shared/controller/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import type { KubeClient } from '../../shared/kube/index.ts';
import type { ReleaseStore } from '../release/index.ts';
import { validatedStep } from './phases.ts';
import type { ExtensionState, ValidatedState } from './pipeline-state.ts';
import { setProgressingError } from './status.ts';

/** What the migrate step uses: operator-controller's own client (revisions) and the Helm release records. */
export interface MigratePorts {
  client: KubeClient;
  helmReleases: Pick<ReleaseStore, 'history'>;
}

export function migrateStep(ports: MigratePorts): Step<ExtensionState> {
  return validatedStep('migrate', (state) => migrate(ports, state));
}

async function migrate(ports: MigratePorts, state: ValidatedState): Promise<StepOutcome> {
  const { ce } = state;
  const owner = { name: ce.metadata.name, uid: ce.metadata.uid ?? '', progressDeadlineMinutes: ce.spec.progressDeadlineMinutes };
  try {
    const outcome = await migrateFromReleases({ client: ports.client, releases: ports.helmReleases }, owner, state.signal);
    if (outcome !== 'none') state.log.info({ outcome }, 'release records migrated to a ClusterObjectSet revision');
  } catch (err) {
    const wrapped = new Error(`migrating storage: ${errorMessage(err)}`, { cause: err });
    setProgressingError(ce, wrapped);
    throw wrapped;
  }
  return undefined;
}
