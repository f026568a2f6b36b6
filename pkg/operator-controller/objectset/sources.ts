/**
 * Where a revision's objects come from: inline in the ClusterObjectSet, or JSON (gzip
 * compressed or not) under a key of a Secret that must be immutable. Each phase's resolved
 * content gets a digest (`status.observedPhases`): recorded on the first reconcile, and a later
 * difference (a referenced Secret deleted and recreated with other content) blocks the revision.
 * A ref without a namespace names a Secret of operator-controller's own namespace, as the CRD
 * says (issue 69); texts are upstream's, with the namespace read. A value that is not JSON is
 * reported by Secret and key, never with its bytes.
 */
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import type { ClusterObjectSet, CollisionProtection, ObjectSourceRef, ObservedPhase } from '../../shared/api/index.ts';
import { errorMessage, jsonSyntaxProblem } from '../../shared/errors/index.ts';
import { isNotFound, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import { goJsonMarshal } from '../bundle/index.ts';
import { effectiveProtection } from './ownership.ts';

/** Largest decompressed object read from a Secret (10 MiB). */
const MAX_DECOMPRESSED_BYTES = 10 * 1024 * 1024;

/** One object of a loaded phase: its manifest as resolved and the collision protection that applies to it. */
interface PhaseObject {
  manifest: KubeObject;
  protection: CollisionProtection;
}

/** A phase with its objects resolved. */
export interface LoadedPhase {
  name: string;
  objects: PhaseObject[];
}

interface SecretLike extends KubeObject {
  immutable?: boolean;
  data?: Record<string, string>;
}

type SecretReader = Pick<KubeClient, 'get'>;

/**
 * `client` reading each object once: a later read of the same namespace and name answers with
 * the first one's promise (its result or its failure). For one reconcile, where the immutability
 * check and every ref of one Secret would otherwise read it again (issue 74: six reads of a
 * revision's Secret per reconcile, one now).
 */
export function readingOnce(client: SecretReader, signal?: AbortSignal): SecretReader {
  const read = new Map<string, Promise<KubeObject>>();
  return {
    get: <T extends KubeObject>(ref: Parameters<KubeClient['get']>[0]): Promise<T> => {
      const at = `${ref.namespace ?? ''}/${ref.name}`;
      let answer = read.get(at);
      if (answer === undefined) {
        answer = client.get(ref, signal === undefined ? {} : { signal });
        read.set(at, answer);
      }
      return answer as Promise<T>;
    },
  };
}

/** The namespace `ref` names: its own, else `systemNamespace` (operator-controller's; '' when unknown). */
function refNamespace(ref: { namespace?: string | undefined }, systemNamespace: string): string {
  return ref.namespace === undefined || ref.namespace === '' ? systemNamespace : ref.namespace;
}

function secretRef(
  ref: { name: string; namespace?: string | undefined },
  systemNamespace: string,
): { apiVersion: 'v1'; kind: 'Secret'; name: string; namespace: string } {
  return { apiVersion: 'v1', kind: 'Secret', name: ref.name, namespace: refNamespace(ref, systemNamespace) };
}

/**
 * The message blocking a revision whose referenced Secrets are not all immutable, or undefined.
 * A Secret not found is skipped here (resolving it fails and is retried).
 */
export async function mutableSecretsMessage(
  client: SecretReader,
  cos: ClusterObjectSet,
  signal?: AbortSignal,
  systemNamespace = '',
): Promise<string | undefined> {
  const seen = new Set<string>();
  const mutable: string[] = [];
  for (const phase of cos.spec.phases) {
    for (const o of phase.objects) {
      if (o.ref === undefined || o.ref.name === '') continue;
      const id = `${refNamespace(o.ref, systemNamespace)}/${o.ref.name}`;
      if (seen.has(id)) continue;
      seen.add(id);
      let secret: SecretLike;
      try {
        secret = await client.get<SecretLike>(secretRef(o.ref, systemNamespace), signal === undefined ? {} : { signal });
      } catch (err) {
        if (isNotFound(err)) continue;
        throw new Error(`getting Secret ${id}: ${errorMessage(err)}`, { cause: err });
      }
      if (secret.immutable !== true) mutable.push(id);
    }
  }
  if (mutable.length === 0) return undefined;
  return `the following secrets are not immutable (referenced secrets must have immutable set to true): ${mutable.join(', ')}`;
}

/**
 * The object `ref` names: its Secret's value, JSON or gzip-compressed JSON of at most 10 MiB.
 * The one reader of revision Secrets, for the revision controller and for the revisions' readers
 * (applier/boxcutter's store). Throws upstream's texts naming the Secret and key, never quoting
 * the value.
 */
export async function readRefObject(client: SecretReader, ref: ObjectSourceRef, systemNamespace: string, signal?: AbortSignal): Promise<KubeObject> {
  const where = `Secret ${refNamespace(ref, systemNamespace)}/${ref.name}`;
  let secret: SecretLike;
  try {
    secret = await client.get<SecretLike>(secretRef(ref, systemNamespace), signal === undefined ? {} : { signal });
  } catch (err) {
    throw new Error(`getting ${where}: ${errorMessage(err)}`, { cause: err });
  }
  const encoded = secret.data?.[ref.key];
  if (encoded === undefined) throw new Error(`key ${JSON.stringify(ref.key)} not found in ${where}`);
  let data = Buffer.from(encoded, 'base64');
  if (data.length >= 2 && data[0] === 0x1f && data[1] === 0x8b) {
    try {
      data = gunzipSync(data, { maxOutputLength: MAX_DECOMPRESSED_BYTES });
    } catch (err) {
      // Node's zlib refuses output past maxOutputLength with a RangeError (ERR_BUFFER_TOO_LARGE).
      if (err instanceof RangeError) {
        throw new Error(`decompressed data for key ${JSON.stringify(ref.key)} in ${where} exceeds maximum size (${MAX_DECOMPRESSED_BYTES} bytes)`, {
          cause: err,
        });
      }
      throw new Error(`decompressing key ${JSON.stringify(ref.key)} in ${where}: ${errorMessage(err)}`, { cause: err });
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.toString('utf8'));
  } catch (err) {
    // Upstream's text, but never the Secret's bytes (V8's message quotes them; issue 69): no cause either.
    // eslint-disable-next-line preserve-caught-error -- the SyntaxError quotes the parsed text (a Secret's bytes)
    throw new Error(`unmarshaling object from key ${JSON.stringify(ref.key)} in ${where}: ${jsonSyntaxProblem(err)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`unmarshaling object from key ${JSON.stringify(ref.key)} in ${where}: not a JSON object`);
  }
  return parsed as KubeObject;
}

/** `sha256:<hex>` of the phase's name and resolved objects, encoded as Go's json.Marshal does (upstream's digest). */
export function phaseDigest(name: string, objects: readonly KubeObject[]): string {
  return `sha256:${createHash('sha256').update(goJsonMarshal({ name, objects }, true)).digest('hex')}`;
}

/**
 * Resolves every phase's objects (Secrets read with `client`) and computes their digests.
 * Throws upstream's texts: `resolving ref in phase "<name>": getting Secret ns/name: ...`,
 * `key "<k>" not found in Secret ns/name`, ... (retried: the Secret may come).
 */
export async function loadPhases(
  client: SecretReader,
  cos: ClusterObjectSet,
  signal?: AbortSignal,
  systemNamespace = '',
): Promise<{ phases: LoadedPhase[]; observed: ObservedPhase[] }> {
  const phases: LoadedPhase[] = [];
  const observed: ObservedPhase[] = [];
  for (const phase of cos.spec.phases) {
    const objects: PhaseObject[] = [];
    for (const o of phase.objects) {
      let manifest: KubeObject;
      if (o.object !== undefined) manifest = structuredClone(o.object) as KubeObject;
      else if (o.ref !== undefined && o.ref.name !== '') {
        try {
          manifest = await readRefObject(client, o.ref, systemNamespace, signal);
        } catch (err) {
          throw new Error(`resolving ref in phase ${JSON.stringify(phase.name)}: ${errorMessage(err)}`, { cause: err });
        }
      } else throw new Error(`object in phase ${JSON.stringify(phase.name)} has neither object nor ref`);
      objects.push({ manifest, protection: effectiveProtection(cos.spec.collisionProtection, phase.collisionProtection, o.collisionProtection) });
    }
    // The digest is of the objects as resolved, before anything is added to them.
    observed.push({
      name: phase.name,
      digest: phaseDigest(
        phase.name,
        objects.map((x) => x.manifest),
      ),
    });
    for (const o of objects) o.manifest.metadata ??= {};
    phases.push({ name: phase.name, objects });
  }
  return { phases, observed };
}

/** The message blocking a revision whose resolved phases differ from those first recorded, or undefined. */
export function changedPhasesMessage(stored: readonly ObservedPhase[], current: readonly ObservedPhase[]): string | undefined {
  if (stored.length === 0) return 'stored observedPhases is unexpectedly empty';
  if (stored.length !== current.length) return `number of phases has changed (expected ${stored.length} phases, got ${current.length})`;
  const digests = new Map(stored.map((s) => [s.name, s.digest]));
  const mismatches = current
    .filter((c) => digests.has(c.name) && digests.get(c.name) !== c.digest)
    .map((c) => `phase ${JSON.stringify(c.name)} (expected digest ${digests.get(c.name) ?? ''}, got ${c.digest})`);
  if (mismatches.length === 0) return undefined;
  return `resolved content of ${mismatches.length} phase(s) has changed: ${mismatches.join('; ')}; a referenced object source may have been deleted and recreated with different content`;
}
