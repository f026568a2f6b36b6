/**
 * Readiness of one applied object, as boxcutter's probing package judges it (v0.14.0) with the
 * probes upstream builds from a ClusterObjectSet's `spec.progressionProbes`: each probe is its
 * selector (GroupKind or Label; an object it does not select passes) over the AND of its
 * assertions (ConditionEqual, FieldsEqual, FieldValue), wrapped in an observedGeneration check
 * (an object whose `status.observedGeneration` lags `metadata.generation` is Unknown, whatever
 * the selector). The probes' AND is the object's `Progress` result; only True lets a phase
 * complete. Messages are boxcutter's, word for word: they end up in condition messages.
 *
 * Pure: objects in, results out.
 */
import type { Assertion, ProgressionProbe } from '../../shared/api/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import { goJsonMarshal } from '../bundle/index.ts';
import { deepEqualJson, goValue, nestedField } from './fields.ts';

/** `True` passes; `False` and `Unknown` hold the phase. */
type ProbeStatus = 'True' | 'False' | 'Unknown';

/** A probe's verdict and the messages saying why. */
export interface ProbeResult {
  status: ProbeStatus;
  messages: string[];
}

const pass = (messages: string[] = []): ProbeResult => ({ status: 'True', messages });
const fail = (message: string): ProbeResult => ({ status: 'False', messages: [message] });
const unknown = (message: string): ProbeResult => ({ status: 'Unknown', messages: [message] });

/**
 * The AND of `results` (boxcutter's probing.And): Unknown when any is Unknown (its messages),
 * else False when any is False (the False messages), else True (the True messages).
 */
function and(results: readonly ProbeResult[]): ProbeResult {
  const of = (s: ProbeStatus): string[] => results.filter((r) => r.status === s).flatMap((r) => r.messages);
  if (results.some((r) => r.status === 'Unknown')) return { status: 'Unknown', messages: of('Unknown') };
  if (results.some((r) => r.status === 'False')) return { status: 'False', messages: of('False') };
  return { status: 'True', messages: of('True') };
}

/** Go's json.Marshal of a decoded value (map keys sorted, HTML characters escaped). */
function json(v: unknown): string {
  return goJsonMarshal(v, true);
}

/** A dotted path as boxcutter splits it: leading and trailing dots trimmed, split on `.`. */
function pathOf(path: string): string[] {
  return path.replace(/^\.+|\.+$/g, '').split('.');
}

function conditionEqual(obj: KubeObject, type: string, status: string): ProbeResult {
  const found = nestedField(obj, ['status', 'conditions']);
  if (!found.ok || !found.found) return unknown('missing .status.conditions');
  if (!Array.isArray(found.value)) return unknown('malformed .status.conditions');
  for (const c of found.value) {
    if (typeof c !== 'object' || c === null || Array.isArray(c)) return unknown('malformed .status.conditions');
    const cond = c as Record<string, unknown>;
    if (cond['type'] !== type) continue;
    const observed = cond['observedGeneration'];
    if (typeof observed === 'number' && Number.isInteger(observed) && observed !== (obj.metadata.generation ?? 0)) {
      return unknown(`.status.condition["${type}"] outdated`);
    }
    if (cond['status'] === status) return pass([`.status.condition["${type}"] is ${status}`]);
    return fail(`.status.condition["${type}"] is ${goValue(cond['status'], 's')}`);
  }
  return unknown(`missing .status.condition["${type}"]`);
}

function fieldsEqual(obj: KubeObject, fieldA: string, fieldB: string): ProbeResult {
  const a = nestedField(obj, pathOf(fieldA));
  if (!a.ok || !a.found) return fail(`"${fieldA}" missing`);
  const b = nestedField(obj, pathOf(fieldB));
  if (!b.ok || !b.found) return fail(`"${fieldB}" missing`);
  if (!deepEqualJson(a.value, b.value)) {
    return fail(`"${fieldA}" != "${fieldB}" expected: ${json(a.value)} got: ${json(b.value)}`);
  }
  return pass([`"${fieldA}" == "${fieldB}"`]);
}

function fieldValue(obj: KubeObject, fieldPath: string, value: string): ProbeResult {
  const found = nestedField(obj, pathOf(fieldPath));
  if (!found.ok) return fail(`error locating key ${JSON.stringify(fieldPath)}; ${found.error}`);
  if (!found.found) return fail(`missing key: ${JSON.stringify(fieldPath)}`);
  // Go compares the decoded value with the string: only a string can be equal.
  if (found.value !== value) {
    return fail(`value at key ${JSON.stringify(fieldPath)} != ${JSON.stringify(value)}; expected: ${json(value)} got: ${json(found.value ?? null)}`);
  }
  return pass([`value at key ${JSON.stringify(fieldPath)} == ${JSON.stringify(value)}`]);
}

function assertion(obj: KubeObject, a: Assertion): ProbeResult {
  switch (a.type) {
    case 'ConditionEqual':
      return conditionEqual(obj, a.conditionEqual?.type ?? '', a.conditionEqual?.status ?? '');
    case 'FieldsEqual':
      return fieldsEqual(obj, a.fieldsEqual?.fieldA ?? '', a.fieldsEqual?.fieldB ?? '');
    case 'FieldValue':
      return fieldValue(obj, a.fieldValue?.fieldPath ?? '', a.fieldValue?.value ?? '');
  }
}

/** `group` of an apiVersion (`apps/v1` -> `apps`, `v1` -> ``). */
function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** True when `labels` satisfy `selector` (metav1.LabelSelector; the API server validated it). */
function labelsMatch(selector: NonNullable<ProgressionProbe['selector']['label']>, labels: Readonly<Record<string, string>>): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const values = e.values ?? [];
    const ok =
      e.operator === 'In'
        ? has && values.includes(labels[e.key] ?? '')
        : e.operator === 'NotIn'
          ? !has || !values.includes(labels[e.key] ?? '')
          : e.operator === 'Exists'
            ? has
            : e.operator === 'DoesNotExist'
              ? !has
              : false;
    if (!ok) return false;
  }
  return true;
}

function selects(probe: ProgressionProbe, obj: KubeObject): boolean {
  const s = probe.selector;
  if (s.type === 'GroupKind') return s.groupKind !== undefined && s.groupKind.group === groupOf(obj.apiVersion) && s.groupKind.kind === obj.kind;
  return s.label !== undefined && labelsMatch(s.label, obj.metadata.labels ?? {});
}

function oneProbe(probe: ProgressionProbe, obj: KubeObject): ProbeResult {
  const observed = nestedField(obj, ['status', 'observedGeneration']);
  if (observed.ok && observed.found && typeof observed.value === 'number' && Number.isInteger(observed.value)) {
    if (observed.value !== (obj.metadata.generation ?? 0)) return unknown('.status outdated');
  }
  // An object the selector does not pick passes, without messages.
  if (!selects(probe, obj)) return pass();
  return and(probe.assertions.map((a) => assertion(obj, a)));
}

/**
 * The `Progress` result of `obj` (as the API server returned it) under `probes`: the AND of
 * every probe; True when there are none.
 */
export function progressProbe(probes: readonly ProgressionProbe[], obj: KubeObject): ProbeResult {
  return and(probes.map((p) => oneProbe(p, obj)));
}

/** A probe over one GroupKind with the given assertions. */
function groupKindProbe(group: string, kind: string, assertions: Assertion[]): ProgressionProbe {
  return { selector: { type: 'GroupKind', groupKind: { group, kind } }, assertions };
}

const conditionIs = (type: string, status: string): Assertion => ({ type: 'ConditionEqual', conditionEqual: { type, status } });
const phaseIs = (value: string): Assertion => ({ type: 'FieldValue', fieldValue: { fieldPath: 'status.phase', value } });
const replicasUpdated: Assertion = { type: 'FieldsEqual', fieldsEqual: { fieldA: 'status.updatedReplicas', fieldB: 'status.replicas' } };

/**
 * The readiness probes operator-controller writes into every ClusterObjectSet it creates for a
 * ClusterExtension (upstream's applier: `defaultProgressionProbes`), in its order: CRD
 * Established; cert-manager Certificate and Issuer Ready; Namespace Active; PVC Bound;
 * StatefulSet and Deployment with `status.updatedReplicas == status.replicas` and Available.
 * The controller itself knows no built-in probe: a ClusterObjectSet gets only the probes its
 * spec lists.
 */
export const DEFAULT_PROGRESSION_PROBES: readonly ProgressionProbe[] = Object.freeze([
  groupKindProbe('apiextensions.k8s.io', 'CustomResourceDefinition', [conditionIs('Established', 'True')]),
  groupKindProbe('cert-manager.io', 'Certificate', [conditionIs('Ready', 'True')]),
  groupKindProbe('cert-manager.io', 'Issuer', [conditionIs('Ready', 'True')]),
  groupKindProbe('', 'Namespace', [phaseIs('Active')]),
  groupKindProbe('', 'PersistentVolumeClaim', [phaseIs('Bound')]),
  groupKindProbe('apps', 'StatefulSet', [replicasUpdated, conditionIs('Available', 'True')]),
  groupKindProbe('apps', 'Deployment', [replicasUpdated, conditionIs('Available', 'True')]),
]);
