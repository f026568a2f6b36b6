import { describe, expect, it } from 'vitest';
import * as deferredTools from './deferred-tools.ts';
import { DEFERRED_GETTERS, orderByNeed, toolsNeeded, toolsNeededBy, usesNode } from './sequencer.ts';

const NODE = DEFERRED_GETTERS.indexOf('envtestNodeBinaries');
const HELM = DEFERRED_GETTERS.indexOf('envtestHelm');
const CERT_MANAGER = DEFERRED_GETTERS.indexOf('envtestCertManager');
const COSIGN = DEFERRED_GETTERS.indexOf('envtestCosign');

describe('orderByNeed', () => {
  it('runs the files needing no deferred tool first, then node, helm, cert-manager and cosign users, keeping the order otherwise', () => {
    const needs: Record<string, number> = { a: -1, cosign: COSIGN, helm1: HELM, b: -1, node: NODE, cm: CERT_MANAGER, helm2: HELM, c: -1 };
    expect(orderByNeed(Object.keys(needs), (f) => needs[f] ?? -1)).toEqual(['a', 'b', 'c', 'node', 'helm1', 'helm2', 'cm', 'cosign']);
  });

  it('leaves a list with no deferred tools as it was', () => {
    expect(orderByNeed(['z', 'y', 'x'], () => -1)).toEqual(['z', 'y', 'x']);
  });
});

describe('toolsNeededBy', () => {
  it('is the latest tool of the chain the source calls for', () => {
    expect(toolsNeededBy(`const helm = await envtestHelm();`)).toBe(HELM);
    expect(toolsNeededBy(`const n = await envtestNodeBinaries();\nconst c = await envtestCertManager();`)).toBe(CERT_MANAGER);
    expect(toolsNeededBy(`// the helm CLI (envtestHelm in deferred-tools.ts)\ninject('envtestBinaries');`)).toBe(-1);
  });

  it('reads no needs from comments', () => {
    expect(
      toolsNeededBy(
        `/**\n * with the test file's \`await envtestCertManager()\`\n */\nconst n = await envtestNodeBinaries(); // not envtestCosign()`,
      ),
    ).toBe(NODE);
    expect(toolsNeededBy(`const url = 'http://127.0.0.1/'; const h = await envtestHelm();`)).toBe(HELM);
  });

  it('counts a direct call of the resolve function behind a getter', () => {
    expect(toolsNeededBy(`node: await resolveNodeBinaries(o),\ncosign: await resolveCosign(o),`)).toBe(COSIGN);
  });

  it('counts a file starting `olmv1 up --node` as a user of the node binaries', () => {
    expect(toolsNeededBy(`spawn(process.execPath, [join(REPO, 'cmd/olmv1/main.ts'), 'up', '--node', '--in-cluster'])`)).toBe(NODE);
    expect(toolsNeededBy(`spawn(process.execPath, ['cmd/olmv1/main.ts', 'up'])`)).toBe(-1);
  });
});

describe('toolsNeeded', () => {
  const files: Record<string, string> = {
    '/r/test/integration/a.test.ts': `import { helm } from '../support/helm.ts';\nimport { x } from '../../pkg/x.ts';`,
    '/r/test/integration/b.test.ts': `import { deployOnNode } from '../support/on-node.ts';\nconst cm = await envtestCertManager();`,
    '/r/test/integration/c.test.ts': `import { envtestCosign } from '../envtest/deferred-tools.ts';\nimport { a } from '../envtest/index.ts';`,
    '/r/test/integration/d.test.ts': `import { renderChart } from '../support/helm-chart.ts';`,
    '/r/test/support/helm.ts': `import { envtestHelm } from '../envtest/deferred-tools.ts';\nconst helmPath = await envtestHelm();`,
    '/r/test/support/helm-chart.ts': `import { helmWith } from './helm.ts';\nimport { other } from './helm-chart.ts';`,
    '/r/test/support/on-node.ts': `const nodeBinaries = await envtestNodeBinaries();`,
    '/r/test/envtest/deferred-tools.ts': `export function envtestNodeBinaries() {}\nexport function envtestCosign() {}`,
    '/r/test/envtest/index.ts': `export { x } from './environment.ts';`,
    '/r/test/envtest/environment.ts': ``,
    '/r/pkg/x.ts': `envtestCosign()`,
  };
  const read = (path: string): Promise<string> => Promise.resolve(files[path] ?? '');
  const need = (file: string): Promise<number> => toolsNeeded(`/r/test/integration/${file}`, '/r/test', read);

  it('follows relative imports into test/support and test/envtest, transitively, and no others', async () => {
    expect(await need('a.test.ts')).toBe(HELM);
    expect(await need('d.test.ts')).toBe(HELM);
    expect(await need('b.test.ts')).toBe(CERT_MANAGER);
  });

  it('does not read needs into deferred-tools.ts, which defines every getter', async () => {
    expect(await need('c.test.ts')).toBe(-1);
  });
});

it("DEFERRED_GETTERS are deferred-tools.ts's getters", () => {
  const getters = Object.entries(deferredTools).filter(([, v]) => typeof v === 'function');
  expect(getters.map(([k]) => k).sort()).toEqual([...DEFERRED_GETTERS].sort());
});

describe('usesNode', () => {
  const files: Record<string, string> = {
    '/r/test/e2e/a.test.ts': `import { deployOnNode } from '../support/on-node.ts';`,
    '/r/test/e2e/b.test.ts': `const helm = await envtestHelm();`,
    '/r/test/e2e/c.test.ts': `const c = await envtestCosign();\nspawn(node, ['cmd/olmv1/main.ts', 'up', '--node'])`,
    '/r/test/support/on-node.ts': `const nodeBinaries = await envtestNodeBinaries();\nconst cm = await envtestCertManager();`,
  };
  const read = (path: string): Promise<string> => Promise.resolve(files[path] ?? '');

  it('is whether the file, or a support module it imports, needs the node binaries, whatever else it needs', async () => {
    expect(await usesNode('/r/test/e2e/a.test.ts', '/r/test', read)).toBe(true);
    expect(await usesNode('/r/test/e2e/b.test.ts', '/r/test', read)).toBe(false);
    expect(await usesNode('/r/test/e2e/c.test.ts', '/r/test', read)).toBe(true);
  });
});
