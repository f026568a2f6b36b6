import { readFileSync } from 'node:fs';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { STREAM_CHUNK } from '../../pkg/catalogd/storage/index.ts';
import { CATALOGD_ENVIRONMENT, CATALOGD_NODE_FLAGS } from './node-flags.ts';

interface Container {
  command: string[];
  env: Array<{ name: string; value?: string }>;
}

function catalogdContainer(): Container {
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

describe('catalogd allocator settings', () => {
  it('keep streamed content reads below the mmap threshold (decision 0082)', () => {
    const threshold = Number(/glibc\.malloc\.mmap_threshold=(\d+)/.exec(CATALOGD_ENVIRONMENT.GLIBC_TUNABLES ?? '')?.[1]);
    // glibc adds a 16-byte chunk header (rounded) to every request.
    expect(STREAM_CHUNK + 32).toBeLessThan(threshold);
  });
});
