// Each component's Deployment runs it with the Node flags and environment its memory is
// measured with (cmd/<component>/node-flags.ts).
import { readFileSync } from 'node:fs';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { CATALOGD_ENVIRONMENT, CATALOGD_NODE_FLAGS } from '../../cmd/shared/node-flags.ts';
import {
  OPERATOR_CONTROLLER_ENVIRONMENT,
  OPERATOR_CONTROLLER_MEMORY_LIMIT_BYTES,
  OPERATOR_CONTROLLER_NODE_FLAGS,
} from '../../cmd/operator-controller/node-flags.ts';

interface Container {
  command: string[];
  env: Array<{ name: string; value?: string }>;
  resources: { limits: { memory: string } };
}

const COMPONENTS = [
  { component: 'catalogd', flags: CATALOGD_NODE_FLAGS, environment: CATALOGD_ENVIRONMENT },
  { component: 'operator-controller', flags: OPERATOR_CONTROLLER_NODE_FLAGS, environment: OPERATOR_CONTROLLER_ENVIRONMENT },
];

/** The first container of the Deployment in config/manager/<component>.yaml. */
function managerContainer(component: string): Container {
  const url = new URL(`../../config/manager/${component}.yaml`, import.meta.url);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- untyped YAML, navigated to one Container
  const docs = loadAll(readFileSync(url, 'utf8')) as Array<Record<string, any>>;
  const deployment = docs.find((d) => d.kind === 'Deployment');
  return deployment?.spec.template.spec.containers[0] as Container;
}

describe.each(COMPONENTS)('$component Deployment', ({ component, flags, environment }) => {
  it(`runs ${component} with the Node flags it is measured with`, () => {
    expect(managerContainer(component).command).toEqual(['node', ...flags, `dist/cmd/${component}/main.js`]);
  });

  it('sets the environment it is measured with', () => {
    const env = managerContainer(component).env;
    for (const [name, value] of Object.entries(environment)) {
      expect(env.find((e) => e.name === name)?.value, name).toBe(value);
    }
  });
});

it('operator-controller runs under the memory limit its hostile-bundle benchmark gives it', () => {
  expect(managerContainer('operator-controller').resources.limits.memory).toBe(`${OPERATOR_CONTROLLER_MEMORY_LIMIT_BYTES / 2 ** 20}Mi`);
});
