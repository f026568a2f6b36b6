/**
 * A package's partition of a catalog: the view of a catalog that resolution gets for one
 * package (its package, channel, bundle and deprecation blobs), as operator-controller's
 * catalog cache builds it.
 */
import type { DeclarativeConfig, Meta } from '../../shared/fbc/types.ts';

// Keeps one item per slot key: the position of the first, the value of the last.
function lastPerSlot<T>(items: readonly T[], keep: (item: T) => boolean, slot: (item: T) => string): T[] {
  const slots = new Map<string, T>();
  for (const item of items) {
    if (keep(item)) slots.set(slot(item), item);
  }
  return [...slots.values()];
}

function slotName(name: string | undefined, schema: string): string {
  return name === undefined || name === '' ? schema : name;
}

/**
 * The part of `catalog` that belongs to `packageName`: the `olm.package` named so, and the
 * channels, bundles, deprecations and other documents whose `package` is that name. Within
 * the partition there is one slot per (schema, name), where an empty name counts as the
 * schema; when documents share a slot the later one wins (so a package has at most one
 * deprecations object and no duplicate bundle names). The input is not modified.
 */
export function packagePartition(catalog: DeclarativeConfig, packageName: string): DeclarativeConfig {
  return {
    packages: lastPerSlot(
      catalog.packages,
      (p) => p.name === packageName,
      (p) => slotName(p.name, 'olm.package'),
    ),
    channels: lastPerSlot(
      catalog.channels,
      (c) => c.package === packageName,
      (c) => slotName(c.name, 'olm.channel'),
    ),
    bundles: lastPerSlot(
      catalog.bundles,
      (b) => b.package === packageName,
      (b) => slotName(b.name, 'olm.bundle'),
    ),
    deprecations: lastPerSlot(
      catalog.deprecations,
      (d) => d.package === packageName,
      () => 'olm.deprecations',
    ),
    others: lastPerSlot(
      catalog.others,
      (m: Meta) => m.package === packageName,
      (m: Meta) => `${m.schema}\u0000${slotName(m.name, m.schema)}`,
    ),
  };
}
