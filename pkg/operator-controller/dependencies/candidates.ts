/**
 * The candidates requirements are checked against: each installed extension (its bundle's
 * properties), and the APIs the cluster serves (one candidate).
 */
import type { Property } from '../../shared/fbc/types.ts';
import type { Candidate, Gvk } from './types.ts';

/** What is known of one installed ClusterExtension. */
interface InstalledExtension {
  readonly name: string;
  readonly packageName: string;
  readonly version: string;
  /**
   * Its bundle's properties when the bundle was found in a catalog; otherwise only the
   * package and version are known (an `olm.package` property is made of them).
   */
  readonly properties?: readonly Property[] | undefined;
}

/** The candidate an installed extension is. */
export function installedCandidate(ext: InstalledExtension): Candidate {
  const properties = ext.properties ?? [{ type: 'olm.package', value: { packageName: ext.packageName, version: ext.version } }];
  return { source: `ClusterExtension ${JSON.stringify(ext.name)}`, properties };
}

/** The candidate the cluster's served APIs are: one `olm.gvk` property each. */
export function servedApisCandidate(gvks: Iterable<Gvk>): Candidate {
  const properties: Property[] = [];
  for (const g of gvks) properties.push({ type: 'olm.gvk', value: { group: g.group, version: g.version, kind: g.kind } });
  return { source: "the cluster's served APIs", properties };
}
