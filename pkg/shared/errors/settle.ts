/**
 * Work done side by side where no part may be abandoned midway: unlike Promise.all, which
 * rejects at the first failure while the others still run, this waits for every promise to
 * settle and only then throws the first rejection in argument order.
 */

/** Resolves with every value once all have settled; throws the first rejection (in order) otherwise. */
export async function settleAll<T extends readonly unknown[]>(promises: { readonly [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(promises);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  return (await Promise.all(promises)) as unknown as T;
}
