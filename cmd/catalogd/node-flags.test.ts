import { readFileSync } from 'node:fs';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { CATALOGD_NODE_FLAGS } from './node-flags.ts';

describe('catalogd Deployment', () => {
  it('runs catalogd with the Node flags it is measured with', () => {
    const docs = loadAll(readFileSync(new URL('../../config/manager/catalogd.yaml', import.meta.url), 'utf8')) as Array<Record<string, any>>;
    const deployment = docs.find((d) => d.kind === 'Deployment');
    const command = deployment?.spec.template.spec.containers[0].command as string[];
    expect(command).toEqual(['node', ...CATALOGD_NODE_FLAGS, 'dist/cmd/catalogd/main.js']);
  });
});
