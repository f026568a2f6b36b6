/**
 * Preflight checks of a revision (boxcutter's validation package, v0.14.0) and their texts. The
 * static part runs on the whole revision before anything is written: phase names are DNS-1035
 * labels, objects carry apiVersion and kind and none of the fields the API server sets
 * (uid, generation, generateName, finalizers, ownerReferences, resourceVersion), and no object is
 * in two phases. Each phase is checked again before it is applied, with a server-side dry run of
 * each object (validation-dry-run.ts); a failing check holds the revision and is retried.
 */
import type { KubeObject } from '../../shared/kube/index.ts';

/** The violations of one object: `<group/version, Kind=K ns/name>: <message>, ...`. */
export interface ObjectViolation {
  ref: string;
  messages: string[];
}

/** The violations of one phase (its name's, then its objects'). */
interface PhaseViolation {
  phase: string;
  nameMessage?: string;
  objects: ObjectViolation[];
}

/** Group, version and kind of a manifest that may lack them (they are checked, not assumed). */
function typeOf(obj: KubeObject): { group: string; version: string; kind: string } {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion, kind } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind };
}

/** `group/version, Kind=Kind ns/name`: how boxcutter names an object. */
export function objectRef(obj: KubeObject): string {
  const { group, version, kind } = typeOf(obj);
  return `${group}/${version}, Kind=${kind} ${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
}

/** apimachinery's IsDNS1035Label messages for `name` (none when valid). */
function dns1035Messages(name: string): string[] {
  const out: string[] = [];
  if (name.length > 63) out.push('must be no more than 63 characters');
  if (!/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(name)) {
    out.push(
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name', or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    );
  }
  return out;
}

/** The phase-name violation of `name`, if any. */
export function phaseNameMessage(name: string): string | undefined {
  const msgs = dns1035Messages(name);
  return msgs.length === 0 ? undefined : `phase name invalid: ${msgs.join(', ')}`;
}

/** Metadata an object of a revision must (not) carry, as field errors. */
export function metadataMessages(obj: KubeObject): string[] {
  const out: string[] = [];
  const { version, kind } = typeOf(obj);
  if (version === '') out.push('apiVersion: Required value: must not be empty');
  if (kind === '') out.push('kind: Required value: must not be empty');
  const m = obj.metadata;
  const forbidden = (field: string): string => `metadata.${field}: Forbidden: must be empty`;
  if ((m.uid ?? '') !== '') out.push(forbidden('uid'));
  if ((m.generation ?? 0) > 0) out.push(forbidden('generation'));
  if ((m.generateName ?? '') !== '') out.push(forbidden('generateName'));
  if ((m.finalizers ?? []).length > 0) out.push(forbidden('finalizers'));
  if ((m.ownerReferences ?? []).length > 0) out.push(forbidden('ownerReferences'));
  if ((m.resourceVersion ?? '') !== '') out.push(forbidden('resourceVersion'));
  return out;
}

/** For each object in more than one of `phases`, the sorted names of those phases. */
function duplicates(phases: readonly { name: string; objects: readonly KubeObject[] }[]): Map<string, string[]> {
  const seen = new Map<string, Set<string>>();
  for (const p of phases) {
    for (const o of p.objects) {
      const ref = objectRef(o);
      const names = seen.get(ref) ?? new Set<string>();
      names.add(p.name);
      seen.set(ref, names);
    }
  }
  const out = new Map<string, string[]>();
  for (const [ref, names] of seen) if (names.size > 1) out.set(ref, [...names].sort());
  return out;
}

/** The static violations of a revision's phases (empty: valid). */
export function revisionViolations(phases: readonly { name: string; objects: readonly KubeObject[] }[]): PhaseViolation[] {
  const dups = duplicates(phases);
  const out: PhaseViolation[] = [];
  for (const p of phases) {
    const objects: ObjectViolation[] = [];
    for (const o of p.objects) {
      const messages = metadataMessages(o);
      if (messages.length > 0) objects.push({ ref: objectRef(o), messages });
    }
    for (const [ref, names] of dups) {
      if (names.includes(p.name)) objects.push({ ref, messages: [`duplicate object found in phases: ${names.join(', ')}`] });
    }
    const nameMessage = phaseNameMessage(p.name);
    if (nameMessage !== undefined || objects.length > 0) out.push({ phase: p.name, ...(nameMessage === undefined ? {} : { nameMessage }), objects });
  }
  return out;
}

/** Objects' violations merged per object, in first-seen order. */
export function compactViolations(objects: readonly ObjectViolation[]): ObjectViolation[] {
  const byRef = new Map<string, string[]>();
  for (const o of objects) byRef.set(o.ref, [...(byRef.get(o.ref) ?? []), ...o.messages]);
  return [...byRef].map(([ref, messages]) => ({ ref, messages }));
}

/** Boxcutter's PhaseValidationError text: `phase "<name>": <name error>, <ref>: <msgs>, ...`. */
export function phaseViolationText(v: PhaseViolation): string {
  const objects = v.objects.map((o) => `${o.ref}: ${o.messages.join(', ')}`);
  const head = `phase ${JSON.stringify(v.phase)}: ${v.nameMessage ?? ''}`;
  if (objects.length === 0) return head;
  return `${head}${v.nameMessage === undefined ? '' : ', '}${objects.join(', ')}`;
}

/** Boxcutter's RevisionValidationError text: `revision "<name>" (<n>): <phase text>, ...`. */
export function revisionViolationText(name: string, revision: number, phases: readonly PhaseViolation[]): string {
  return `revision ${JSON.stringify(name)} (${revision}): ${phases.map(phaseViolationText).join(', ')}`;
}
