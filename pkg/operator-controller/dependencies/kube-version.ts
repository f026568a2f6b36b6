/**
 * A CSV's `spec.minKubeVersion`, as catalogs carry it in the bundle's `olm.csv.metadata`
 * property, against the API server's version (`/version` `gitVersion`): OLM classic refuses to
 * install a bundle on an older cluster, naming both versions. Both are read tolerantly (a
 * leading `v`, missing minor or patch); build metadata (`+k3s1`) and pre-release parts of the
 * server's version do not count, as OLM compares major.minor.patch.
 */
import type { Bundle } from '../../shared/fbc/types.ts';
import { compareSemver } from '../../shared/semver/index.ts';
import { parseTolerant } from '../../shared/semver/index.ts';

function minKubeVersionOf(bundle: Pick<Bundle, 'properties'>): string | undefined {
  for (const p of bundle.properties) {
    if (p.type !== 'olm.csv.metadata' || p.value === null || typeof p.value !== 'object' || Array.isArray(p.value)) continue;
    const v = p.value['minKubeVersion'];
    if (typeof v === 'string' && v.trim() !== '') return v.trim();
  }
  return undefined;
}

function core(version: string): string {
  return version.trim().replace(/^v/, '').split(/[+-]/)[0] ?? '';
}

/**
 * OLM classic's `CSV version requirement not met: minKubeVersion (<min>) > server version
 * (<server>)` when the bundle needs a newer cluster, else undefined. A minKubeVersion that
 * does not read as a version is reported the same way OLM does not: as unmet, with the reason.
 */
export function kubeVersionUnmet(bundle: Pick<Bundle, 'name' | 'properties'>, serverVersion: string): string | undefined {
  const min = minKubeVersionOf(bundle);
  if (min === undefined) return undefined;
  const want = parseTolerant(core(min));
  if (!want.ok) return `bundle ${JSON.stringify(bundle.name)}: minKubeVersion ${JSON.stringify(min)} is not a version: ${want.error}`;
  const have = parseTolerant(core(serverVersion));
  if (!have.ok || compareSemver(want.value, have.value) <= 0) return undefined;
  return `bundle ${JSON.stringify(bundle.name)}: CSV version requirement not met: minKubeVersion (${min}) > server version (${core(serverVersion)})`;
}
