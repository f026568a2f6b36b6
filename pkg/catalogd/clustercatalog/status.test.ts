import { describe, expect, it } from 'vitest';
import type { ClusterCatalog } from '../../shared/api/index.ts';
import { setNeverServed, setServing, statusOf } from './status.ts';

const catalog = (): ClusterCatalog => ({
  metadata: { name: 'c', generation: 1 },
  spec: { source: { type: 'Image', image: { ref: 'r:1' } }, priority: 0, availabilityMode: 'Available' },
});
const serving = (cc: ClusterCatalog) => statusOf(cc).conditions?.find((c) => c.type === 'Serving');

describe('catalog status', () => {
  it('a catalog that never unpacked shows Serving False, not an absent condition', () => {
    const cc = catalog();
    setNeverServed(cc);
    expect(serving(cc)).toMatchObject({ status: 'False', reason: 'Unavailable', message: 'No content unpacked yet: see the Progressing condition' });
  });

  it('content served before keeps Serving True through a failed poll', () => {
    const cc = catalog();
    setServing(cc, { digestRef: 'r@sha256:x', baseURL: 'http://c', unpackedAt: new Date(0) });
    setNeverServed(cc);
    expect(serving(cc)).toMatchObject({ status: 'True', reason: 'Available' });
  });
});
