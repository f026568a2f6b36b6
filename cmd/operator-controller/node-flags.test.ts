import { readFileSync } from 'node:fs';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { OPERATOR_CONTROLLER_ENVIRONMENT, OPERATOR_CONTROLLER_NODE_FLAGS } from './node-flags.ts';

interface Container {
  command: string[];
  env: Array<{ name: string; value?: string }>;
}

function managerContainer(): Container {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- untyped YAML, navigated to one Container
  const docs = loadAll(readFileSync(new URL('../../config/manager/operator-controller.yaml', import.meta.url), 'utf8')) as Array<Record<string, any>>;
  const deployment = docs.find((d) => d.kind === 'Deployment');
  return deployment?.spec.template.spec.containers[0] as Container;
}

describe('operator-controller Deployment', () => {
  it('runs operator-controller with the Node flags it is measured with', () => {
    expect(managerContainer().command).toEqual(['node', ...OPERATOR_CONTROLLER_NODE_FLAGS, 'dist/cmd/operator-controller/main.js']);
  });

  it('sets the environment it is measured with', () => {
    const env = managerContainer().env;
    for (const [name, value] of Object.entries(OPERATOR_CONTROLLER_ENVIRONMENT)) {
      expect(env.find((e) => e.name === name)?.value, name).toBe(value);
    }
  });
});
