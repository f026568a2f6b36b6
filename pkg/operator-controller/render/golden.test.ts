import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GOLDEN_CASES, GOLDEN_DIR, renderGoldenCase } from '../../../test/fixtures/bundles/golden-cases.ts';

// Regenerate after an intended change with:
//   node_modules/.bin/node test/fixtures/bundles/update-goldens.ts
describe('golden renderings', () => {
  it.each(GOLDEN_CASES.map((c) => [c.name, c] as const))('%s', async (name, c) => {
    const expected = await readFile(join(GOLDEN_DIR, `${name}.yaml`), 'utf8');
    expect(await renderGoldenCase(c)).toBe(expected);
  });
});
