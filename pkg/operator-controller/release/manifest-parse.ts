/**
 * Parsing a release's manifest (manifest.ts): the whole text of a record, JSON lines or YAML
 * documents as upstream may have stored them, and one JSON line alone.
 */
import { decodeYamlOrJson } from '../../gocompat/goyaml/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';

/** The objects of a manifest, or the reason it holds something else. */
type ParsedManifest = { ok: true; objects: KubeObject[] } | { ok: false; problem: string };

/**
 * Parses a stored manifest into its objects, in order. Empty documents (YAML comments only)
 * are skipped; any other document that is not an object with apiVersion, kind and metadata
 * makes the manifest invalid, as does text that neither JSON nor YAML decodes.
 */
export function parseManifest(manifest: string): ParsedManifest {
  const fast = parseJsonLines(manifest);
  if (fast !== undefined) return { ok: true, objects: fast };
  const decoded = decodeYamlOrJson(Buffer.from(manifest, 'utf8'));
  if (decoded.error !== undefined) return { ok: false, problem: `the manifest does not decode: ${decoded.error}` };
  const objects: KubeObject[] = [];
  for (const [i, doc] of decoded.docs.entries()) {
    if (doc === null) continue;
    if (!isKubeObject(doc)) return { ok: false, problem: `manifest document ${i + 1} is not an object with apiVersion, kind and metadata` };
    objects.push(doc);
  }
  return { ok: true, objects };
}

/**
 * The objects of a manifest of one JSON object per line (what we and upstream write), or
 * undefined when it is not one: the fast path, JSON.parse per line instead of the byte-wise
 * stream decoder.
 */
function parseJsonLines(manifest: string): KubeObject[] | undefined {
  const objects: KubeObject[] = [];
  for (const line of manifest.split('\n')) {
    if (line.trim() === '') continue;
    if (!line.startsWith('{')) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return undefined;
    }
    if (!isKubeObject(value)) return undefined;
    objects.push(value);
  }
  return objects;
}

/** True for a JSON object with string apiVersion and kind and an object metadata. */
export function isKubeObject(v: unknown): v is KubeObject {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const o = v as { apiVersion?: unknown; kind?: unknown; metadata?: unknown };
  return (
    typeof o.apiVersion === 'string' &&
    typeof o.kind === 'string' &&
    typeof o.metadata === 'object' &&
    o.metadata !== null &&
    !Array.isArray(o.metadata)
  );
}

/** The object of one manifest line, or undefined when it is not JSON of an object. */
export function parseLine(line: string): KubeObject | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  return isKubeObject(value) ? value : undefined;
}
