/**
 * The CLI's side of the objects `olmv1 install` writes (pkg/olmv1/install/objects.ts, re-exported
 * for uninstall, update and the console): kubectl's selector text as a LabelSelector, and the
 * rows and serving state of ClusterCatalogs.
 */
import type { LabelSelector } from '../../pkg/operator-controller/resolve/index.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import { statusConditions } from '../../pkg/olmv1/install/index.ts';

export {
  INSTALLED_BY_LABEL,
  INSTALLED_FOR_LABEL,
  installObjects,
  installState,
  installedForSelector,
  type ExtensionRequest,
} from '../../pkg/olmv1/install/index.ts';

export { CATALOG_NAME_LABEL } from '../../pkg/shared/api/index.ts';

const KEY = String.raw`(?:[a-z0-9A-Z](?:[-a-z0-9A-Z_.]*[a-z0-9A-Z])?\/)?[a-z0-9A-Z](?:[-a-z0-9A-Z_.]*[a-z0-9A-Z])?`;
const VALUE = String.raw`(?:[a-z0-9A-Z](?:[-a-z0-9A-Z_.]*[a-z0-9A-Z])?)?`;
const SET_RE = new RegExp(String.raw`^(${KEY})\s+(in|notin)\s+\(([^)]*)\)$`);
const EQ_RE = new RegExp(String.raw`^(${KEY})\s*(==|=|!=)\s*(${VALUE})$`);
const EXISTS_RE = new RegExp(String.raw`^(!?)\s*(${KEY})$`);

/**
 * kubectl's label-selector text (`env=prod,tier!=dev,zone in (a,b),!legacy,team`) as a
 * LabelSelector: `=`/`==` go to matchLabels, the rest to matchExpressions.
 * @throws Error naming the requirement that does not parse.
 */
export function parseSelectorText(text: string): LabelSelector {
  const matchLabels: Record<string, string> = {};
  const matchExpressions: { key: string; operator: string; values?: string[] }[] = [];
  // Split on commas outside parentheses.
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  for (const raw of parts) {
    const part = raw.trim();
    let m: RegExpExecArray | null;
    if ((m = SET_RE.exec(part)) !== null) {
      const values = (m[3] ?? '').split(',').map((v) => v.trim());
      if (values.some((v) => !new RegExp(`^${VALUE}$`).test(v))) throw new Error(`invalid selector requirement ${JSON.stringify(part)}`);
      matchExpressions.push({ key: m[1] ?? '', operator: m[2] === 'in' ? 'In' : 'NotIn', values });
    } else if ((m = EQ_RE.exec(part)) !== null) {
      if (m[2] === '!=') matchExpressions.push({ key: m[1] ?? '', operator: 'NotIn', values: [m[3] ?? ''] });
      else matchLabels[m[1] ?? ''] = m[3] ?? '';
    } else if ((m = EXISTS_RE.exec(part)) !== null) {
      matchExpressions.push({ key: m[2] ?? '', operator: m[1] === '!' ? 'DoesNotExist' : 'Exists' });
    } else {
      throw new Error(`invalid selector requirement ${JSON.stringify(part)}`);
    }
  }
  return {
    ...(Object.keys(matchLabels).length === 0 ? {} : { matchLabels }),
    ...(matchExpressions.length === 0 ? {} : { matchExpressions }),
  };
}

/** Whether the ClusterCatalog `obj` serves content (Serving=True), with its Progressing text otherwise. */
export function catalogServing(obj: KubeObject): { serving: boolean; progress: string } {
  const serving = statusConditions(obj).find((c) => c.type === 'Serving');
  const progressing = statusConditions(obj).find((c) => c.type === 'Progressing');
  return {
    serving: serving?.status === 'True',
    progress: progressing === undefined ? 'waiting for catalogd' : `${progressing.reason ?? ''}: ${progressing.message ?? ''}`,
  };
}

/** One row of `olmv1 catalogs`: a ClusterCatalog as `kubectl get clustercatalogs` would show it, plus its image. */
export function catalogRow(obj: KubeObject): Record<'name' | 'availability' | 'priority' | 'serving' | 'lastUnpacked' | 'image', string> {
  const spec = (obj.spec ?? {}) as { priority?: number; availabilityMode?: string; source?: { image?: { ref?: string } } };
  const status = (obj.status ?? {}) as { lastUnpacked?: string; resolvedSource?: { image?: { ref?: string } } };
  const serving = statusConditions(obj).find((c) => c.type === 'Serving');
  return {
    name: obj.metadata.name ?? '',
    availability: spec.availabilityMode ?? 'Available',
    priority: String(spec.priority ?? 0),
    serving: serving?.status ?? 'Unknown',
    lastUnpacked: status.lastUnpacked ?? '-',
    image: status.resolvedSource?.image?.ref ?? spec.source?.image?.ref ?? '-',
  };
}
