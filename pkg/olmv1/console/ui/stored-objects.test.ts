import { describe, expect, it } from 'vitest';
import { storedObjectLines } from './stored-objects.ts';

const crd = (name: string, verdict: string, storedObjects?: string[]) => ({
  name,
  verdict,
  ...(storedObjects === undefined ? {} : { storedObjects }),
});

describe('storedObjectLines', () => {
  it("shows the refused CRDs' stored-object lines, bounded", () => {
    const plan = {
      changes: {
        crdUpgradeSafety: {
          crds: [
            crd('a.example.com', 'unsafe', [
              'stored objects: CRD a.example.com: 1 of 2 stored objects fail the new schema: ns/big (e)',
              '  ns/big (v1): e',
            ]),
            crd('b.example.com', 'safe', [
              'stored objects: CRD b.example.com: all 2 stored objects pass the new schema (let through by the stored-object check)',
            ]),
            crd('c.example.com', 'unsafe'),
          ],
        },
      },
    };
    expect(storedObjectLines(plan)).toEqual([
      'stored objects: CRD a.example.com: 1 of 2 stored objects fail the new schema: ns/big (e)',
      '  ns/big (v1): e',
    ]);
    expect(storedObjectLines(plan, 1)).toEqual([
      'stored objects: CRD a.example.com: 1 of 2 stored objects fail the new schema: ns/big (e)',
      'and 1 more lines (see olmv1 upgrade plan)',
    ]);
    expect(storedObjectLines({})).toEqual([]);
  });
});
