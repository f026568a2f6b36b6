/**
 * The files `olmv1 catalog mirror` writes beside the copies (pure): a containers-registries.conf
 * drop-in that sends pulls of every mirrored repository to its mirror (what catalogd,
 * operator-controller and CRI-O read), an OpenShift ImageDigestMirrorSet with the same pairs, a
 * ClusterCatalog for the mirrored catalog (by digest), and `mapping.txt` (`source=target` lines,
 * as `oc adm catalog mirror` writes them). Values are quoted for their format, so a hostile
 * reference cannot add a key or a document.
 */
import { dump } from 'js-yaml';
import { CLUSTER_CATALOG } from '../../shared/api/index.ts';

/** One source repository and the repository it was copied to. */
interface MirrorPair {
  source: string;
  target: string;
}

/** One copied image: its reference and where it is now, by digest. */
export interface MirroredImage extends MirrorPair {
  ref: string;
  digest: string;
}

/** TOML basic string. */
function tomlString(s: string): string {
  return JSON.stringify(s).replace(/\u007f/g, '\\u007f');
}

/** The distinct pairs of `images`, in source order. */
function mirrorPairs(images: readonly MirrorPair[]): MirrorPair[] {
  const seen = new Map<string, MirrorPair>();
  for (const { source, target } of images) if (!seen.has(source)) seen.set(source, { source, target });
  return [...seen.values()].sort((a, b) => a.source.localeCompare(b.source));
}

/**
 * A registries.conf (v2) drop-in: each source repository keeps its name (`prefix`, `location`)
 * and gets its mirror, tried first for digest and tag pulls alike. `insecure` marks mirrors
 * reached over plain HTTP or unverified TLS; such a mirror's registry is also marked insecure
 * under its own name, which clustercatalog.yaml pulls the catalog by.
 */
export function registriesConf(pairs: readonly MirrorPair[], insecure: (target: string) => boolean): string {
  const out = ['# Written by olmv1 catalog mirror: pulls of these repositories are served by their mirror.', ''];
  const insecureHosts = new Set<string>();
  for (const { source, target } of mirrorPairs(pairs)) {
    out.push('[[registry]]', `prefix = ${tomlString(source)}`, `location = ${tomlString(source)}`, '');
    out.push('[[registry.mirror]]', `location = ${tomlString(target)}`);
    if (insecure(target)) {
      out.push('insecure = true');
      insecureHosts.add(target.split('/')[0] ?? target);
    }
    out.push('');
  }
  for (const host of [...insecureHosts].sort()) out.push('[[registry]]', `location = ${tomlString(host)}`, 'insecure = true', '');
  return out.join('\n');
}

/** An OpenShift `config.openshift.io/v1` ImageDigestMirrorSet named `name` with the same pairs. */
export function imageDigestMirrorSet(name: string, pairs: readonly MirrorPair[]): string {
  const doc = {
    apiVersion: 'config.openshift.io/v1',
    kind: 'ImageDigestMirrorSet',
    metadata: { name },
    spec: { imageDigestMirrors: mirrorPairs(pairs).map(({ source, target }) => ({ source, mirrors: [target] })) },
  };
  return dump(doc, { lineWidth: -1, noRefs: true });
}

/** A ClusterCatalog `name` serving the mirrored catalog `ref` (its mirror repository by digest). */
export function clusterCatalog(name: string, ref: string): string {
  const doc = {
    apiVersion: CLUSTER_CATALOG.apiVersion,
    kind: CLUSTER_CATALOG.kind,
    metadata: { name },
    spec: { source: { type: 'Image', image: { ref } } },
  };
  return dump(doc, { lineWidth: -1, noRefs: true });
}

/** `source@digest=target@digest` per copied image, sorted. */
export function mappingText(images: readonly MirroredImage[]): string {
  const lines = images.map((i) => `${i.source}@${i.digest}=${i.target}@${i.digest}`);
  return `${[...new Set(lines)].sort().join('\n')}\n`;
}
