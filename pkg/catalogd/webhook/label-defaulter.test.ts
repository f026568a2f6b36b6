import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CATALOG_NAME_LABEL } from '../../shared/api/index.ts';
import { reviewClusterCatalog } from './label-defaulter.ts';

const catalog = (metadata: Record<string, unknown>) => ({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', metadata, spec: {} });
const review = (request: Record<string, unknown>) => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request });

/** The answer's patch, decoded; undefined when there is none. */
function patchOf(body: unknown): unknown {
  const a = reviewClusterCatalog(body);
  if (a.kind !== 'review') throw new Error(`not a review: ${a.message}`);
  return a.review.response.patch === undefined ? undefined : JSON.parse(Buffer.from(a.review.response.patch, 'base64').toString('utf8'));
}

/** Applies the only operations the defaulter emits (add or remove an object member) to `doc`. */
function applyPatch(doc: Record<string, unknown>, ops: Array<{ op: string; path: string; value?: unknown }>): Record<string, unknown> {
  const out = structuredClone(doc);
  for (const { op, path, value } of ops) {
    expect(['add', 'remove']).toContain(op);
    const tokens = path
      .split('/')
      .slice(1)
      .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
    const last = tokens.pop() as string;
    let at = out as Record<string, unknown>;
    for (const t of tokens) at = at[t] as Record<string, unknown>;
    if (op === 'remove') {
      // RFC 6902: removing a member that is not there fails the whole patch.
      expect(Object.hasOwn(at, last)).toBe(true);
      delete at[last];
    } else at[last] = value;
  }
  return out;
}

describe('reviewClusterCatalog', () => {
  it('adds the labels map to a catalog without labels, answering in kind with the request uid', () => {
    const a = reviewClusterCatalog(review({ uid: 'u-1', operation: 'CREATE', object: catalog({ name: 'operatorhubio' }) }));
    expect(a).toMatchObject({ kind: 'review', patched: true, review: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' } });
    if (a.kind !== 'review') throw new Error('unreachable');
    expect(a.review.response).toMatchObject({ uid: 'u-1', allowed: true, patchType: 'JSONPatch' });
    expect(patchOf(review({ uid: 'u-1', operation: 'CREATE', object: catalog({ name: 'operatorhubio' }) }))).toEqual([
      { op: 'add', path: '/metadata/labels', value: { [CATALOG_NAME_LABEL]: 'operatorhubio' } },
    ]);
  });

  it('sets the label beside other labels, and replaces a wrong one (escaping the / of its key)', () => {
    for (const labels of [{ team: 'a' }, { team: 'a', [CATALOG_NAME_LABEL]: 'other' }, null]) {
      const ops = patchOf(review({ uid: 'u', operation: 'UPDATE', object: catalog({ name: 'c', labels }) }));
      const path = labels === null ? '/metadata/labels' : '/metadata/labels/olm.operatorframework.io~1metadata.name';
      expect(ops).toEqual([{ op: 'add', path, value: labels === null ? { [CATALOG_NAME_LABEL]: 'c' } : 'c' }]);
    }
  });

  it('answers allowed without a patch when the label is right, a generateName create carries none, or the operation carries no object', () => {
    expect(patchOf(review({ uid: 'u', operation: 'CREATE', object: catalog({ name: 'c', labels: { [CATALOG_NAME_LABEL]: 'c' } }) }))).toBeUndefined();
    expect(patchOf(review({ uid: 'u', operation: 'CREATE', object: catalog({ generateName: 'c-' }) }))).toBeUndefined();
    expect(patchOf(review({ uid: 'u', operation: 'CREATE', object: catalog({ generateName: 'c-', labels: { team: 'a' } }) }))).toBeUndefined();
    const del = reviewClusterCatalog(review({ uid: 'u', operation: 'DELETE', oldObject: catalog({ name: 'c' }) }));
    expect(del).toMatchObject({ kind: 'review', patched: false, review: { response: { uid: 'u', allowed: true } } });
  });

  it('removes a name label from a generateName create, whose name does not exist yet, keeping the other labels', () => {
    for (const metadata of [{ generateName: 'c-' }, { generateName: 'c-', name: '' }]) {
      for (const spoofed of ['victim', 'c-', '']) {
        const object = catalog({ ...metadata, labels: { [CATALOG_NAME_LABEL]: spoofed, team: 'a' } });
        const a = reviewClusterCatalog(review({ uid: 'u', operation: 'CREATE', object }));
        expect(a).toMatchObject({ kind: 'review', patched: true, review: { response: { uid: 'u', allowed: true, patchType: 'JSONPatch' } } });
        const ops = patchOf(review({ uid: 'u', operation: 'CREATE', object }));
        expect(ops).toEqual([{ op: 'remove', path: '/metadata/labels/olm.operatorframework.io~1metadata.name' }]);
        expect(applyPatch(object, ops as Array<{ op: string; path: string }>).metadata).toEqual({ ...metadata, labels: { team: 'a' } });
      }
    }
  });

  it('denies with code 400 a review whose object is not a ClusterCatalog', () => {
    for (const object of [
      undefined,
      'x',
      [],
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } },
      { ...catalog({ name: 'c' }), apiVersion: 7 },
    ]) {
      expect(reviewClusterCatalog(review({ uid: 'u', operation: 'CREATE', object }))).toMatchObject({
        kind: 'review',
        review: { response: { uid: 'u', allowed: false, status: { code: 400 } } },
      });
    }
  });

  it('refuses bodies that are not an AdmissionReview v1 with a request uid', () => {
    for (const body of [
      null,
      [],
      'AdmissionReview',
      { apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', request: { uid: 'u' } },
      { apiVersion: 'admission.k8s.io/v1', kind: 'Other', request: { uid: 'u' } },
      review({ operation: 'CREATE' }),
      review({ uid: '', operation: 'CREATE' }),
      review({ uid: 7, operation: 'CREATE' }),
      { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' },
    ]) {
      expect(reviewClusterCatalog(body).kind).toBe('bad-request');
    }
  });

  it('always leaves the label equal to the name once the patch is applied (absent while there is no name), and never touches other labels', () => {
    const key = fc.oneof(fc.constant(CATALOG_NAME_LABEL), fc.stringMatching(/^[a-z0-9./~-]{1,20}$/));
    fc.assert(
      fc.property(
        fc.option(fc.string({ minLength: 1, maxLength: 30 }), { nil: undefined }),
        fc.option(fc.dictionary(key, fc.string({ maxLength: 10 })), { nil: undefined }),
        (name, labels) => {
          const metadata = name === undefined ? { generateName: 'g-' } : { name };
          const object = catalog(labels === undefined ? metadata : { ...metadata, labels });
          const ops = (patchOf(review({ uid: 'u', operation: 'CREATE', object })) ?? []) as Array<{ op: string; path: string; value?: unknown }>;
          const after = applyPatch(object, ops).metadata as { labels?: Record<string, string> };
          expect(after.labels?.[CATALOG_NAME_LABEL]).toBe(name);
          for (const [k, v] of Object.entries(labels ?? {})) if (k !== CATALOG_NAME_LABEL) expect(after.labels?.[k]).toBe(v);
        },
      ),
    );
  });
});
