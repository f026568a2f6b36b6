/**
 * The ClusterExtension controller's drift watches as a leading replica starts them: the
 * cluster-scoped kinds operator-controller may watch itself are shared per kind (decision 0109),
 * every other kind is watched per extension as its ServiceAccount.
 */
import type { KubeClient } from '../../shared/kube/index.ts';
import { shareableDriftKinds } from './shared.ts';
import { DriftWatches } from './watches.ts';

/** What startDriftWatches needs: the watches' options but the shared kinds, which it asks for. */
type StartOptions = Omit<ConstructorParameters<typeof DriftWatches>[0], 'shared'> & { client: KubeClient };

/** Reviews which kinds may be shared (none when the review fails) and starts the watches; they end with `o.signal`. */
export async function startDriftWatches({ client, ...o }: StartOptions): Promise<DriftWatches> {
  const kinds = await shareableDriftKinds(client, o.signal).catch((err: unknown) => {
    o.log.warn({ err }, 'drift watch permissions not reviewed, watching every kind per extension');
    return [];
  });
  o.log.info({ kinds: kinds.map((k) => k.kind) }, 'drift watches shared per cluster-scoped kind');
  return new DriftWatches({ ...o, shared: { client, kinds } });
}
