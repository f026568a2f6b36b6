// The step-list check against a small tree: the table matches the assembled list, in order, or
// it names both lists.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stepListProblems } from './step-lists.ts';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'step-lists-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), text);
}

async function tree(ceRow: string): Promise<void> {
  await put('cmd/operator-controller/reconcilers.ts', 'function clusterExtensionSteps(p) {\n  return [aStep({}), bStep(), cStep({ x })];\n}\n');
  await put(
    'pkg/operator-controller/clusterextension/steps.ts',
    "export function aStep(p) {\n  return { name: 'a', run };\n}\nexport function bStep() {\n  return plannedStep('b-b', run);\n}\n" +
      "export function cStep(p) {\n  return finalStep(\n    'c',\n    x,\n  );\n}\n",
  );
  await put('pkg/operator-controller/clusterextension/steps.test.ts', "export function dStep() {\n  return { name: 'd' };\n}\n");
  await put('cmd/catalogd/reconcilers.ts', 'export function catalogReconciler(d) {\n  return [eStep()];\n}\n');
  await put('pkg/catalogd/clustercatalog/e.ts', "export function eStep() {\n  return { name: 'e' };\n}\n");
  await put('docs/development.md', `# x\n\n| controller | steps | where |\n|---|---|---|\n${ceRow}\n| ClusterCatalog (x) | \`e\` | e.ts |\n`);
}

describe('step lists', () => {
  it('agree: nothing to say', async () => {
    await tree('| ClusterExtension (x) | `a`, `b-b`, `c` (c always) | steps.ts |');
    expect(stepListProblems(root)).toEqual([]);
  });

  it('a step missing from the table, or out of order: both lists named', async () => {
    await tree('| ClusterExtension (x) | `a`, `c` | steps.ts |');
    expect(stepListProblems(root)).toEqual([
      {
        file: 'docs/development.md',
        line: 5,
        message: 'the ClusterExtension steps are `a`, `b-b`, `c` (cmd/operator-controller/reconcilers.ts); the table says a, c',
      },
    ]);
    await tree('| ClusterExtension (x) | `b-b`, `a`, `c` | steps.ts |');
    expect(stepListProblems(root)).toHaveLength(1);
  });

  it("compares the user guide's described list too, item by item", async () => {
    await tree('| ClusterExtension (x) | `a`, `b-b`, `c` | steps.ts |');
    const guide = (items: string): Promise<void> =>
      put('docs/operator-controller.md', `# y\n\nEach reconcile runs these steps in order and\nwrites status:\n\n${items}\nAfter the list.\n`);
    await guide('- `a`: first,\n  on two lines.\n- `b-b`: second.\n- `c` (always): third.\n');
    expect(stepListProblems(root)).toEqual([]);
    // Prose after the list is not read as items; a missing step, or an item without a name, is named.
    await guide('- `a`: first.\n- `c`: third.\n\n- `b-b` in another list.\n');
    expect(stepListProblems(root)).toEqual([
      {
        file: 'docs/operator-controller.md',
        line: 3,
        message: 'the ClusterExtension steps are `a`, `b-b`, `c` (cmd/operator-controller/reconcilers.ts); the list says a, c',
      },
    ]);
    await guide('- `a`: first.\n- b-b: second.\n- `c`: third.\n');
    expect(stepListProblems(root)[0]?.message).toMatch(/the list says a, \(an item without a step name\), c$/);
    await put('docs/operator-controller.md', '# y\n\nNo list here.\n');
    expect(stepListProblems(root)[0]?.message).toBe('no list of the ClusterExtension steps after "Each reconcile runs these steps in order"');
  });
});
