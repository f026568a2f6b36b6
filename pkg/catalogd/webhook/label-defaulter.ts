/**
 * The ClusterCatalog name-label defaulter (pure): as upstream's mutating webhook, the label
 * `olm.operatorframework.io/metadata.name` of every created or updated ClusterCatalog ends up its
 * name, but a patch is answered only when the label is missing or wrong (upstream filters with a
 * match condition: decision 0103). A body that is not an AdmissionReview v1 with a uid is a
 * `bad-request` value; a review of no ClusterCatalog is answered `allowed: false`, code 400, as
 * controller-runtime answers a defaulter's decoding failure.
 */

/** The label ClusterExtensions select catalogs by name with. */
export const CATALOG_NAME_LABEL = 'olm.operatorframework.io/metadata.name';

/** Upstream catalogd's webhook path (controller-runtime's name for a v1 ClusterCatalog defaulter). */
export const CLUSTER_CATALOG_MUTATE_PATH = '/mutate-olm-operatorframework-io-v1-clustercatalog';

const REVIEW_API_VERSION = 'admission.k8s.io/v1';

/** One RFC 6902 operation of the answer's patch. */
interface PatchOperation {
  op: 'add';
  path: string;
  value: unknown;
}

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

/**
 * The patch that makes `object`'s name label equal to its name, or none when it already is (or
 * the object has no name yet: upstream's configuration skips those requests too).
 */
function nameLabelPatch(object: Record<string, unknown>): PatchOperation[] {
  const metadata = object['metadata'];
  if (!isObject(metadata)) return [];
  const name = metadata['name'];
  if (typeof name !== 'string' || name === '') return [];
  const labels = metadata['labels'];
  if (isObject(labels)) {
    if (labels[CATALOG_NAME_LABEL] === name) return [];
    return [{ op: 'add', path: `/metadata/labels/${pointerToken(CATALOG_NAME_LABEL)}`, value: name }];
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
