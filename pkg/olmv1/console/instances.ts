/**
 * "Create instance" (issue 71, OperatorHub's): the example objects an installed bundle offers for
 * the APIs it provides (its CSV's `alm-examples`, read from the catalog's `olm.csv.metadata`), and
 * the object a user edits from one, checked before it is written: one YAML document, of a kind
 * the bundle provides, with a name. Pure. Catalog content is hostile: the annotation is parsed
 * within a size bound, and an example of a kind the bundle does not provide is dropped.
 */
import { dump, JSON_SCHEMA, load } from 'js-yaml';
import type { Bundle, DeclarativeConfig, JsonValue } from '../../shared/fbc/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';

/** The largest `alm-examples` annotation, and the largest object a user submits, read. */
const MAX_TEXT = 256 * 1024;
/** At most this many examples are offered. */
const MAX_EXAMPLES = 50;

/** An API a bundle provides (`olm.gvk`). */
interface ProvidedApi {
  apiVersion: string;
  kind: string;
}

/** One example: its API and the object as YAML. */
interface InstanceExample extends ProvidedApi {
  yaml: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The APIs bundle `b` provides. */
function providedApis(b: Bundle): ProvidedApi[] {
  return b.properties.flatMap((p) => {
    const v = p.value as JsonValue;
    if (p.type !== 'olm.gvk' || !isObject(v)) return [];
    const { group, version, kind } = v;
    if (typeof version !== 'string' || typeof kind !== 'string' || version === '' || kind === '') return [];
    return [{ apiVersion: typeof group === 'string' && group !== '' ? `${group}/${version}` : version, kind }];
  });
}

/** The bundle named `bundle` of package `pkg` in `dc`, if it is there. */
function bundleOf(dc: DeclarativeConfig, pkg: string, bundle: string): Bundle | undefined {
  return dc.bundles.find((b) => b.package === pkg && b.name === bundle);
}

/** The APIs the bundle provides, and its examples of them; undefined when the catalog has no such bundle. */
export function instanceExamples(
  dc: DeclarativeConfig,
  pkg: string,
  bundle: string,
): { apis: ProvidedApi[]; examples: InstanceExample[] } | undefined {
  const b = bundleOf(dc, pkg, bundle);
  if (b === undefined) return undefined;
  const apis = providedApis(b);
  const meta = b.properties.find((p) => p.type === 'olm.csv.metadata')?.value;
  const annotations = isObject(meta) && isObject(meta['annotations']) ? meta['annotations'] : {};
  const text = annotations['alm-examples'];
  if (typeof text !== 'string' || text.length > MAX_TEXT) return { apis, examples: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { apis, examples: [] };
  }
  const examples = (Array.isArray(parsed) ? parsed : [])
    .filter((o): o is Record<string, unknown> => isObject(o) && apis.some((a) => a.apiVersion === o['apiVersion'] && a.kind === o['kind']))
    .slice(0, MAX_EXAMPLES)
    .map((o) => ({ apiVersion: String(o['apiVersion']), kind: String(o['kind']), yaml: dump(o, { schema: JSON_SCHEMA, noRefs: true }) }));
  return { apis, examples };
}

/** The object `text` describes, when it is one of `apis` with a name; else why not. */
export function parseInstance(text: string, apis: readonly ProvidedApi[]): { ok: true; object: KubeObject } | { ok: false; error: string } {
  if (text.length > MAX_TEXT) return { ok: false, error: `the object is larger than ${MAX_TEXT / 1024} KiB` };
  let parsed: unknown;
  try {
    parsed = load(text, { schema: JSON_SCHEMA });
  } catch (e) {
    return { ok: false, error: `not YAML: ${(e as Error).message.split('\n')[0] ?? ''}` };
  }
  if (!isObject(parsed)) return { ok: false, error: 'not one object: write a single YAML mapping with apiVersion, kind and metadata' };
  const { apiVersion, kind, metadata } = parsed;
  if (!apis.some((a) => a.apiVersion === apiVersion && a.kind === kind)) {
    return {
      ok: false,
      error: `${String(kind)} ${String(apiVersion)} is not an API this extension provides (${apis.map((a) => `${a.kind} ${a.apiVersion}`).join(', ') || 'none'})`,
    };
  }
  if (!isObject(metadata) || typeof metadata['name'] !== 'string' || metadata['name'] === '') return { ok: false, error: 'metadata.name: required' };
  return { ok: true, object: parsed as KubeObject };
}
