import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { renderChecksums, verifyChecksums } from './checksums.ts';

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

describe('renderChecksums', () => {
  it('writes sha256sum --check lines sorted by name', () => {
    const sums = renderChecksums([
      { name: 'olmv1.yaml', content: 'a' },
      { name: 'install.sh', content: 'b' },
    ]);
    expect(sums).toBe(`${sha('b')}  install.sh\n${sha('a')}  olmv1.yaml\n`);
  });

  it('verifies the same bytes and names a changed or missing file', () => {
    const files = [
      { name: 'a', content: 'x' },
      { name: 'b', content: new TextEncoder().encode('y') },
    ];
    const sums = renderChecksums(files);
    expect(verifyChecksums(sums, files)).toEqual([]);
    expect(verifyChecksums(sums, [{ name: 'a', content: 'x!' }])).toEqual(['a', 'b']);
  });
});
