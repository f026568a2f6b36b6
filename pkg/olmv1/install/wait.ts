/**
 * The install service's wait: reads the ClusterExtension until operator-controller reports it
 * Installed, failed for good, or the time is up; each new Progressing text is an event.
 */
import { CLUSTER_EXTENSION } from '../../shared/api/index.ts';
import { installState } from './objects.ts';
import type { InstallPorts } from './ports.ts';

/** Where the ClusterExtension `name` stands when the wait ends (installed, failed, or still waiting after `timeoutMs`). */
export async function waitInstalled(
  ports: Pick<InstallPorts, 'client' | 'clock' | 'onEvent'>,
  name: string,
  timeoutMs: number,
): Promise<ReturnType<typeof installState>> {
  const { clock } = ports;
  const deadline = clock.now() + timeoutMs;
  let last = '';
  for (;;) {
    const state = installState(await ports.client.get({ ...CLUSTER_EXTENSION, name }));
    if (state.state !== 'waiting') return state;
    if (state.progress !== last) ports.onEvent?.({ type: 'waiting', extension: name, progress: state.progress });
    last = state.progress;
    if (clock.now() >= deadline) return state;
    await clock.sleep(Math.min(1000, Math.max(0, deadline - clock.now())));
  }
}
