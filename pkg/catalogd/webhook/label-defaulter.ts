/**
 * The ClusterCatalog name-label defaulter (pure): as upstream's mutating webhook, the label
 * `olm.operatorframework.io/metadata.name` of every created or updated ClusterCatalog ends up its
 * name, but a patch is answered only when the label is missing or wrong (upstream filters with a
 * match condition: decision 0103). A create with `generateName` has no name yet at admission (the
 * API server generates it afterwards): a label given then cannot be known to match, so it is
 * removed, and the first update (catalogd adding its finalizer) sets it (decision 0113; upstream
 * lets such a label stand until then). A body that is not an AdmissionReview v1 with a uid is a
 * `bad-request` value; a review of no ClusterCatalog is answered `allowed: false`, code 400, as
 * controller-runtime answers a defaulter's decoding failure.
 */

// The constants alone: the index would load the zod schemas before catalogd serves (decision 0097).
import { CATALOG_NAME_LABEL } from '../../shared/api/v1/constants.ts';

/** Upstream catalogd's webhook path (controller-runtime's name for a v1 ClusterCatalog defaulter). */
export const CLUSTER_CATALOG_MUTATE_PATH = '/mutate-olm-operatorframework-io-v1-clustercatalog';

const REVIEW_API_VERSION = 'admission.k8s.io/v1';

/** One RFC 6902 operation of the answer's patch. */
type PatchOperation = { op: 'add'; path: string; value: unknown } | { op: 'remove'; path: string };

/** The `response` of an answered AdmissionReview. */
interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  patchType?: 'JSONPatch';
  /** Base64 of the JSON patch. */
  patch?: string;
  status?: { code: number; message: string };
}

/** What to send back: an AdmissionReview (HTTP 200), or a body no review can be made of (HTTP 400). */
type ReviewAnswer =
  | { kind: 'review'; review: { apiVersion: string; kind: 'AdmissionReview'; response: AdmissionResponse }; patched: boolean }
  | { kind: 'bad-request'; message: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** RFC 6901 escaping of one reference token. */
const pointerToken = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1');

const LABEL_PATH = `/metadata/labels/${pointerToken(CATALOG_NAME_LABEL)}`;

/**
 * The patch that makes `object`'s name label equal to its name, or none when it already is. An
 * object with no name yet (a create with generateName) loses the label if it has one, as no value
 * given before the name exists can be trusted to match it.
 */
function nameLabelPatch(object: Record<string, unknown>): PatchOperation[] {
  const metadata = object['metadata'];
  if (!isObject(metadata)) return [];
  const name = metadata['name'];
  const labels = metadata['labels'];
  if (typeof name !== 'string' || name === '') {
    return isObject(labels) && Object.hasOwn(labels, CATALOG_NAME_LABEL) ? [{ op: 'remove', path: LABEL_PATH }] : [];
  }
  if (isObject(labels)) {
    if (labels[CATALOG_NAME_LABEL] === name) return [];
    return [{ op: 'add', path: LABEL_PATH, value: name }];
  }
  return [{ op: 'add', path: '/metadata/labels', value: { [CATALOG_NAME_LABEL]: name } }];
}

function answer(uid: string, response: Omit<AdmissionResponse, 'uid'>, patched = false): ReviewAnswer {
  return { kind: 'review', review: { apiVersion: REVIEW_API_VERSION, kind: 'AdmissionReview', response: { uid, ...response } }, patched };
}

/** Answers one parsed request body. */
export function reviewClusterCatalog(body: unknown): ReviewAnswer {
  if (!isObject(body) || body['apiVersion'] !== REVIEW_API_VERSION || body['kind'] !== 'AdmissionReview') {
    return { kind: 'bad-request', message: `expected an AdmissionReview of ${REVIEW_API_VERSION}` };
  }
  const request = body['request'];
  if (!isObject(request) || typeof request['uid'] !== 'string' || request['uid'] === '') {
    return { kind: 'bad-request', message: 'the AdmissionReview has no request uid' };
  }
  const uid = request['uid'];
  const operation = request['operation'];
  // Only creates and updates carry an object to default; anything else is let through unchanged.
  if (operation !== 'CREATE' && operation !== 'UPDATE') return answer(uid, { allowed: true });
  const object = request['object'];
  const kind = isObject(object) ? object['kind'] : undefined;
  const apiVersion = isObject(object) ? object['apiVersion'] : undefined;
  if (!isObject(object) || kind !== 'ClusterCatalog' || typeof apiVersion !== 'string' || !apiVersion.startsWith('olm.operatorframework.io/')) {
    return answer(uid, { allowed: false, status: { code: 400, message: 'the request object is not a ClusterCatalog' } });
  }
  const patch = nameLabelPatch(object);
  if (patch.length === 0) return answer(uid, { allowed: true });
  return answer(uid, { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') }, true);
}
