/**
 * An informer's copies of a fake cluster's objects of one kind as of the last `sync`, deeply
 * frozen as the Informer hands them out (pkg/shared/kube/informer.ts): a reader that writes
 * through one fails, and a test decides when the copy catches up with the cluster.
 */
import { OWNER_NAME_LABEL } from '../../pkg/shared/api/index.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import type { FakeCluster } from './fake-cluster.ts';

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  for (const v of Object.values(value)) deepFreeze(v);
  return Object.freeze(value);
}

/**
 * The copies of `cluster`'s objects of `kind` as of the last `sync`: `of` answers those labelled
 * with an owner's name, as a `labelIndex` of the informer by owner-name label does.
 */
export function informerCopy(
  cluster: Pick<FakeCluster, 'objects'>,
  kind: string,
): { of: (owner: string) => readonly KubeObject[]; sync: () => void } {
  let items: readonly KubeObject[] = [];
  const sync = (): void => {
    items = [...cluster.objects.values()].filter((o) => o.kind === kind).map((o) => deepFreeze(structuredClone(o)));
  };
  sync();
  return { of: (owner) => items.filter((o) => o.metadata.labels?.[OWNER_NAME_LABEL] === owner), sync };
}
