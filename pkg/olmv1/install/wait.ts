/**
 * The install service's wait: reads the ClusterExtension until operator-controller reports it
 * Installed, failed for good, or the time is up; each new Progressing text is an event.
 */
import { CLUSTER_EXTENSION } from '../../shared/api/index.ts';
import { pollUntilDone } from '../../shared/poll/index.ts';
import { installState } from './objects.ts';
import type { InstallPorts } from './ports.ts';

/** Where the ClusterExtension `name` stands when the wait ends (installed, failed, or still waiting after `timeoutMs`). */
export async function waitInstalled(
  ports: Pick<InstallPorts, 'client' | 'clock' | 'onEvent'>,
  name: string,
  timeoutMs: number,
): Promise<ReturnType<typeof installState>> {
  return pollUntilDone(
    timeoutMs,
    async () => installState(await ports.client.get({ ...CLUSTER_EXTENSION, name })),
    (state) => (state.state === 'waiting' ? state.progress : undefined),
    (progress) => ports.onEvent?.({ type: 'waiting', extension: name, progress }),
    ports.clock,
  );
}
