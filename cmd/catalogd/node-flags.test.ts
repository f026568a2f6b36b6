import { readFileSync } from 'node:fs';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { CATALOGD_ENVIRONMENT, CATALOGD_NODE_FLAGS } from './node-flags.ts';

interface Container {
  command: string[];
  env: Array<{ name: string; value?: string }>;
}

function catalogdContainer(): Container {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- untyped YAML, navigated to one Container
  const docs = loadAll(readFileSync(new URL('../../config/manager/catalogd.yaml', import.meta.url), 'utf8')) as Array<Record<string, any>>;
  const deployment = docs.find((d) => d.kind === 'Deployment');
  return deployment?.spec.template.spec.containers[0] as Container;
}

describe('catalogd Deployment', () => {
  it('runs catalogd with the Node flags it is measured with', () => {
    expect(catalogdContainer().command).toEqual(['node', ...CATALOGD_NODE_FLAGS, 'dist/cmd/catalogd/main.js']);
  });

  it('sets the environment it is measured with', () => {
    const env = catalogdContainer().env;
    for (const [name, value] of Object.entries(CATALOGD_ENVIRONMENT)) {
      expect(env.find((e) => e.name === name)?.value, name).toBe(value);
    }
  });
});
