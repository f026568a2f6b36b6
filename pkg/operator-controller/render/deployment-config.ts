/**
 * Applies `spec.config.inline.deploymentConfig` to a generated Deployment with OLM v0's
 * semantics (as upstream reimplements them), containers only (never init containers):
 *
 * - `env`: per container, a variable with the same name is replaced in place, others are
 *   appended;
 * - `envFrom`, `tolerations`: appended unless an equal entry is already there;
 * - `volumes` (pod) and `volumeMounts` (per container): same name replaced, else appended;
 * - `resources`: replaces every container's resources;
 * - `nodeSelector`: replaces the pod's node selector;
 * - `affinity`: `{}` removes the pod affinity; each given part (node/pod/podAnti) replaces
 *   the pod's, an empty part removes it; an affinity left empty is removed;
 * - `annotations`: added to the Deployment and the pod template for keys not already set
 *   (so `olm.targetNamespaces` cannot be overridden).
 *
 * "Equal" is structural equality ignoring null members (Go compares typed values, where an
 * absent and a null field are the same).
 */
import type { JsonObject } from '../bundle/index.ts';
import type { DeploymentConfig } from './bundle-config.ts';

/** The mutable parts of a Deployment under construction: fresh copies; the values inside are shared with the bundle and only replaced. */
export interface WorkingPod {
  deploymentMeta: JsonObject;
  templateAnnotations: Record<string, string>;
  podSpec: JsonObject;
  containers: JsonObject[];
}

/** Applies `dc` to `pod` in place (see the module comment for the rules). */
export function applyDeploymentConfig(pod: WorkingPod, dc: DeploymentConfig): void {
  for (const c of pod.containers) {
    if (dc.env !== undefined && dc.env.length > 0) c['env'] = mergeByName(list(c['env']), dc.env);
    if (dc.envFrom !== undefined && dc.envFrom.length > 0) c['envFrom'] = appendUnique(list(c['envFrom']), dc.envFrom);
    if (dc.volumeMounts !== undefined && dc.volumeMounts.length > 0) {
      c['volumeMounts'] = mergeByName(list(c['volumeMounts']), dc.volumeMounts);
    }
    if (dc.resources !== undefined) c['resources'] = dc.resources;
  }
  if (dc.volumes !== undefined && dc.volumes.length > 0) pod.podSpec['volumes'] = mergeByName(list(pod.podSpec['volumes']), dc.volumes);
  if (dc.tolerations !== undefined && dc.tolerations.length > 0) {
    pod.podSpec['tolerations'] = appendUnique(list(pod.podSpec['tolerations']), dc.tolerations);
  }
  if (dc.nodeSelector !== undefined) pod.podSpec['nodeSelector'] = dc.nodeSelector;
  if (dc.affinity !== undefined) applyAffinity(pod.podSpec, dc.affinity);
  if (dc.annotations !== undefined && Object.keys(dc.annotations).length > 0) {
    const deploymentAnnotations = { ...((pod.deploymentMeta['annotations'] ?? {}) as Record<string, string>) };
    for (const [k, v] of Object.entries(dc.annotations)) {
      if (!Object.hasOwn(deploymentAnnotations, k)) deploymentAnnotations[k] = v;
      if (!Object.hasOwn(pod.templateAnnotations, k)) pod.templateAnnotations[k] = v;
    }
    pod.deploymentMeta['annotations'] = deploymentAnnotations;
  }
}

function list(v: unknown): JsonObject[] {
  return Array.isArray(v) ? (v as JsonObject[]) : [];
}

/**
 * `existing` with each of `updates` replacing the entry of the same name in place, or appended.
 * The index of existing names is taken before appending (as upstream), so two updates with the
 * same new name are both appended.
 */
export function mergeByName(existing: readonly JsonObject[], updates: readonly JsonObject[]): JsonObject[] {
  const out = [...existing];
  const index = new Map<unknown, number>();
  existing.forEach((e, i) => index.set(e['name'], i));
  for (const u of updates) {
    const i = index.get(u['name']);
    if (i === undefined) out.push(u);
    else out[i] = u;
  }
  return out;
}

function appendUnique(existing: readonly JsonObject[], additions: readonly JsonObject[]): JsonObject[] {
  const out = [...existing];
  for (const a of additions) if (!out.some((e) => semanticEqual(e, a))) out.push(a);
  return out;
}

const AFFINITY_PARTS = ['nodeAffinity', 'podAffinity', 'podAntiAffinity'] as const;

function applyAffinity(podSpec: JsonObject, config: JsonObject): void {
  const given = AFFINITY_PARTS.filter((p) => config[p] !== undefined && config[p] !== null);
  if (given.length === 0) {
    delete podSpec['affinity'];
    return;
  }
  const affinity: JsonObject = { ...((podSpec['affinity'] ?? {}) as JsonObject) };
  for (const part of given) {
    const value = config[part] as JsonObject;
    if (isEmptyAffinityPart(part, value)) delete affinity[part];
    else affinity[part] = value;
  }
  if (AFFINITY_PARTS.every((p) => affinity[p] === undefined || affinity[p] === null || isEmptyAffinityPart(p, affinity[p] as JsonObject))) {
    delete podSpec['affinity'];
  } else {
    podSpec['affinity'] = affinity;
  }
}

function isEmptyAffinityPart(part: (typeof AFFINITY_PARTS)[number], value: JsonObject): boolean {
  const preferred = list(value['preferredDuringSchedulingIgnoredDuringExecution']);
  if (part === 'nodeAffinity') {
    const required = value['requiredDuringSchedulingIgnoredDuringExecution'] as JsonObject | null | undefined;
    const terms = required === undefined || required === null ? [] : list(required['nodeSelectorTerms']);
    return terms.length === 0 && preferred.length === 0;
  }
  return list(value['requiredDuringSchedulingIgnoredDuringExecution']).length === 0 && preferred.length === 0;
}

/** Structural equality of JSON values where null and absent members are the same. */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => semanticEqual(x, b[i]));
  const ka = Object.keys(a).filter((k) => (a as JsonObject)[k] !== null && (a as JsonObject)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as JsonObject)[k] !== null && (b as JsonObject)[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => semanticEqual((a as JsonObject)[k], (b as JsonObject)[k]));
}
