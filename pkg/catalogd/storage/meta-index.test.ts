import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MetaIndex, MetaIndexBuilder } from './meta-index.ts';

// A small catalog laid out as catalog.jsonl would be: [schema, package, name, length].
const BLOBS: Array<[string, string, string, number]> = [
  ['olm.package', '', 'foo', 10],
  ['olm.channel', 'foo', 'stable', 20],
  ['olm.bundle', 'foo', 'foo.v1', 30],
  ['olm.bundle', 'foo', 'foo.v2', 40],
  ['', 'foo', 'orphan', 5],
  ['olm.package', '', 'bar', 11],
  ['olm.bundle', 'bar', 'bar.v1', 12],
  ['olm.deprecations', 'bar', '', 13],
  ['custom.schema', 'bar', 'foo.v1', 14],
];

function build(): MetaIndex {
  const b = new MetaIndexBuilder();
  let offset = 0;
  for (const [schema, pkg, name, len] of BLOBS) {
    b.add({ schema, package: pkg, name }, offset, len);
    offset += len;
  }
  return MetaIndex.parse(b.serialize());
}

const offsetOf = (i: number): number => BLOBS.slice(0, i).reduce((n, x) => n + x[3], 0);

describe('MetaIndex.lookup', () => {
  const index = build();

  it('returns every blob with a schema when no filter is set, coalesced', () => {
    // Blob 4 has no schema, so the result is two contiguous runs around it.
    expect(index.lookup({ schema: '', package: '', name: '' })).toEqual([
      { offset: 0, length: 100 },
      { offset: offsetOf(5), length: 11 + 12 + 13 + 14 },
    ]);
  });

  it('does not return the olm.package blob for ?package= (it has no package field)', () => {
    expect(index.lookup({ schema: '', package: 'foo', name: '' })).toEqual([{ offset: offsetOf(1), length: 90 }]);
  });

  it('intersects schema, package and name exactly', () => {
    expect(index.lookup({ schema: 'olm.bundle', package: 'foo', name: 'foo.v2' })).toEqual([{ offset: offsetOf(3), length: 40 }]);
    expect(index.lookup({ schema: '', package: '', name: 'foo.v1' })).toEqual([
      { offset: offsetOf(2), length: 30 },
      { offset: offsetOf(8), length: 14 },
    ]);
    expect(index.lookup({ schema: 'olm.package', package: '', name: 'bar' })).toEqual([{ offset: offsetOf(5), length: 11 }]);
  });

  it('never matches olm.deprecations by name and is case-sensitive', () => {
    expect(index.lookup({ schema: 'olm.deprecations', package: '', name: 'x' })).toEqual([]);
    expect(index.lookup({ schema: 'OLM.bundle', package: '', name: '' })).toEqual([]);
    expect(index.lookup({ schema: '', package: 'nope', name: '' })).toEqual([]);
  });

  it('rejects files it did not write', () => {
    expect(() => MetaIndex.parse('{"by_schema":{}}')).toThrow('malformed catalog index');
  });
});

describe('MetaIndex against a plain scan', () => {
  // Small value sets so that filters often hit, miss and share entries.
  const field = (values: string[]): fc.Arbitrary<string> => fc.constantFrom('', ...values);
  const blob = fc.tuple(
    field(['olm.bundle', 'olm.channel', 'olm.package']),
    field(['a', 'b', 'c']),
    field(['x', 'y', 'a']),
    fc.integer({ min: 1, max: 9 }),
  );

  it('answers every query with the coalesced ranges of the matching blobs, in file order', () => {
    fc.assert(
      fc.property(
        fc.array(blob, { maxLength: 40 }),
        field(['olm.bundle', 'olm.channel', 'nope']),
        field(['a', 'b', 'nope']),
        field(['x', 'a', 'nope']),
        (blobs, schema, pkg, name) => {
          const b = new MetaIndexBuilder();
          let offset = 0;
          const expected: Array<{ offset: number; length: number }> = [];
          for (const [s, p, n, len] of blobs) {
            b.add({ schema: s, package: p, name: n }, offset, len);
            const matches = s !== '' && (schema === '' || s === schema) && (pkg === '' || p === pkg) && (name === '' || n === name);
            const last = expected[expected.length - 1];
            if (matches && last !== undefined && last.offset + last.length === offset) last.length += len;
            else if (matches) expected.push({ offset, length: len });
            offset += len;
          }
          expect(MetaIndex.parse(b.serialize()).lookup({ schema, package: pkg, name })).toEqual(expected);
        },
      ),
    );
  });
});
