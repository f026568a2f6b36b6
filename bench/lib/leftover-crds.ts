/**
 * The CRDs a side's uninstalls left behind, deleted before the next side starts. Our uninstall
 * keeps an extension's CRDs (the CRD guard: they and their custom resources outlive it), upstream's
 * leaves them to the garbage collector; without this, each side would start with more CRDs than
 * the one before, and kube-apiserver's work for each new CRD (its OpenAPI, its APIService, its
 * discovery) grows with the CRDs it serves: at 1,000 extensions upstream's side, run third, started
 * with 2,003 CRDs where ours had started with the floor's 1,003.
 */
import type { KubeClient } from '../../pkg/shared/kube/index.ts';
import { isNotFound } from '../../pkg/shared/kube/index.ts';

const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };

/** Deletes every CRD whose group starts with `groupPrefix` and waits until they are gone; resolves with how many there were. */
export async function deleteLeftoverCrds(client: KubeClient, groupPrefix: string, timeoutMs: number): Promise<number> {
  const ofSide = async (): Promise<string[]> =>
    (await client.listAll(CRD)).items
      .filter((c) => String((c as { spec?: { group?: unknown } }).spec?.group ?? '').startsWith(groupPrefix))
      .map((c) => c.metadata.name ?? '');
  const names = await ofSide();
  const queue = [...names];
  const worker = async (): Promise<void> => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift())
      await client.delete({ ...CRD, name }).catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      });
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  const deadline = Date.now() + timeoutMs;
  for (let left = await ofSide(); left.length > 0; left = await ofSide()) {
    if (Date.now() > deadline) throw new Error(`${left.length} CRDs of group ${groupPrefix}* still there after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  return names.length;
}
