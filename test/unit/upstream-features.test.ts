// The runner of upstream's e2e features (test/support/upstream-features): Gherkin pickles, tag
// selection, upstream's variable substitution and feature-gate skips, a scenario driven through
// the step table against a fake kubectl, and a dry run of upstream's real feature files (from
// its Go module) that finds a definition for every step of revision.feature and of the
// @BoxcutterRuntime scenarios.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestFunction } from 'vitest';
import { loadBundleDir, writeBundleDir } from '../support/bundle-flow.ts';
import { catalogFbc, generatedBundleFiles, parseCatalogTable, parseContents } from '../support/upstream-features/catalogs.ts';
import { parseFeatures } from '../support/upstream-features/gherkin.ts';
import {
  disabledGateTag,
  gatesFromDeployment,
  loadUpstreamScenarios,
  readUpstreamFeatures,
  unmatchedSteps,
  upstreamModuleDir,
  UpstreamStepError,
  UPSTREAM_DEFAULT_GATES,
} from '../support/upstream-features/index.ts';
import { parseGoDuration, UPSTREAM_WAIT, waitPolicyFrom, type Kubectl, type KubectlResult } from '../support/upstream-features/kubectl.ts';
import { parseTagExpression } from '../support/upstream-features/tags.ts';
import { expandShell, scenarioNames, substituteScenarioVars, templateContent } from '../support/upstream-features/vars.ts';

const OUTLINE = `@Feat
Feature: Things

  Background:
    Given OLM is available

  @One
  Scenario: plain
    When resource is applied
      """
      kind: ConfigMap
      """
    Then resource "configmap/x" is installed

  @Two
  Scenario Outline: outline <n>
    Then resource "<kind>/y" is installed

    @Ex
    Examples:
      | n | kind      |
      | 1 | configmap |
      | 2 | secret    |
`;

describe('parseFeatures', () => {
  it('compiles Backgrounds, Outlines and inherited tags into pickles, ids counting up across files', () => {
    const scenarios = parseFeatures([
      { uri: 'features/things.feature', text: OUTLINE },
      { uri: 'features/more.feature', text: 'Feature: More\n  Scenario: m\n    Given OLM is available\n' },
    ]);
    expect(scenarios.map((s) => s.name)).toEqual(['plain', 'outline 1', 'outline 2', 'm']);
    expect(scenarios.map((s) => s.featureName)).toEqual(['things', 'things', 'things', 'more']);
    expect(scenarios[0]?.tags).toEqual(['@Feat', '@One']);
    expect(scenarios[2]?.tags).toEqual(['@Feat', '@Two', '@Ex']);
    expect(scenarios[0]?.steps.map((s) => s.text)).toEqual(['OLM is available', 'resource is applied', 'resource "configmap/x" is installed']);
    expect(scenarios[0]?.steps[1]?.docString).toBe('kind: ConfigMap');
    expect(scenarios[2]?.steps[1]?.text).toBe('resource "secret/y" is installed');
    const ids = scenarios.map((s) => Number(s.id));
    expect(new Set(ids).size).toBe(4);
    expect(ids.every((id, i) => i === 0 || id > (ids[i - 1] ?? 0))).toBe(true);
  });

  it('names the file on a syntax error', () => {
    expect(() => parseFeatures([{ uri: 'bad.feature', text: 'Feature: x\n  Scenario: y\n    Given a\n    """\n    unclosed\n' }])).toThrow(
      /bad\.feature/,
    );
  });
});

describe('parseTagExpression', () => {
  it('applies not, and, or with their precedence and parentheses', () => {
    const box = parseTagExpression('@BoxcutterRuntime and not @ProgressDeadline');
    expect(box(['@BoxcutterRuntime'])).toBe(true);
    expect(box(['@BoxcutterRuntime', '@ProgressDeadline'])).toBe(false);
    expect(box(['@Other'])).toBe(false);
    const prec = parseTagExpression('@a or @b and not @c');
    expect(prec(['@a', '@c'])).toBe(true);
    expect(prec(['@b', '@c'])).toBe(false);
    expect(parseTagExpression('(@a or @b) and @c')(['@a'])).toBe(false);
    expect(parseTagExpression('')(['@anything'])).toBe(true);
    expect(parseTagExpression('@with\\ space')(['@with space'])).toBe(true);
  });

  it('rejects malformed expressions', () => {
    expect(() => parseTagExpression('@a and')).toThrow(/tag was expected/);
    expect(() => parseTagExpression('(@a')).toThrow(/not closed/);
    expect(() => parseTagExpression('a')).toThrow(/not a tag/);
    expect(() => parseTagExpression('@a @b')).toThrow(/unexpected/);
  });
});

describe('variable substitution', () => {
  it("expands like Go's os.Expand", () => {
    const m = (k: string): string => `<${k}>`;
    expect(expandShell('${A}-$B_1.$', m)).toBe('<A>-<B_1>.$');
    expect(expandShell('${PACKAGE:test}', m)).toBe('<PACKAGE:test>');
    expect(expandShell('a${}b${c', m)).toBe('abc');
    expect(expandShell('$1$-x', m)).toBe('<1><->x');
    expect(expandShell('cost $ 5', m)).toBe('cost $ 5');
  });

  it("substitutes a scenario's names and leaves unknown variables as ${X}", () => {
    const n = scenarioNames('7', 'olmv1-system');
    const names = { ...n, catalogPackageNames: new Map([['test', 'test-7']]), catalogs: new Map([['test', 'test-catalog-7']]) };
    expect(substituteScenarioVars('${TEST_NAMESPACE} ${NAME} ${COS_NAME} ${SCENARIO_ID} ${OLM_NAMESPACE}', names)).toBe(
      'ns-7 ce-7 cos-7 7 olmv1-system',
    );
    expect(substituteScenarioVars('${PACKAGE:test}.1.0.0 in ${CATALOG:test}; $UNKNOWN ${OTHER}', names)).toBe(
      'test-7.1.0.0 in test-catalog-7; ${UNKNOWN} ${OTHER}',
    );
    expect(templateContent('${SERVICEACCOUNT_NAME}', new Map([['SERVICEACCOUNT_NAME', 'sa']]))).toBe('sa');
  });
});

describe('step timeout', () => {
  it("is upstream's 5 minutes and 1 second ticks, or E2E_STEP_TIMEOUT as a Go duration", () => {
    expect(waitPolicyFrom({})).toEqual({ timeoutMs: 300_000, tickMs: 1_000 });
    expect(waitPolicyFrom({ E2E_STEP_TIMEOUT: '10m30s' })).toEqual({ timeoutMs: 630_000, tickMs: 1_000 });
    expect(waitPolicyFrom({ E2E_STEP_TIMEOUT: 'soon' })).toEqual(UPSTREAM_WAIT);
    expect(parseGoDuration('1.5h')).toBe(5_400_000);
    expect(parseGoDuration('250ms')).toBe(250);
  });
});

describe('feature gates', () => {
  const deployment = (args: string[]): unknown => ({
    spec: {
      template: {
        spec: {
          containers: [
            { name: 'manager', args },
            { name: 'other', args: ['--feature-gates=DeploymentConfig=true'] },
          ],
        },
      },
    },
  });

  it("reads the manager container's --feature-gates args over upstream's defaults", () => {
    const gates = gatesFromDeployment(
      deployment(['--feature-gates=BoxcutterRuntime=true', '--feature-gates=WebhookProviderCertManager=false', '--v=2']),
    );
    expect(gates.get('BoxcutterRuntime')).toBe(true);
    expect(gates.get('WebhookProviderCertManager')).toBe(false);
    expect(gates.get('DeploymentConfig')).toBe(false);
    expect(UPSTREAM_DEFAULT_GATES.get('BoxcutterRuntime')).toBe(false);
  });

  it('skips on a tag naming a known gate that is off, never on other tags', () => {
    const gates = gatesFromDeployment(deployment(['--feature-gates=BoxcutterRuntime=true']));
    expect(disabledGateTag(['@BoxcutterRuntime', '@ProgressDeadline', '@Serial'], gates)).toBeUndefined();
    expect(disabledGateTag(['@BoxcutterRuntime', '@DeploymentConfig'], gates)).toBe('@DeploymentConfig');
  });
});

/** A fake kubectl: `answer` maps the joined args to a result; every call is recorded. */
function fakeKubectl(answer: (args: string) => Partial<KubectlResult> | undefined): { run: Kubectl; calls: { args: string; input?: string }[] } {
  const calls: { args: string; input?: string }[] = [];
  const run: Kubectl = (args, input) => {
    const joined = args.join(' ');
    calls.push(input === undefined ? { args: joined } : { args: joined, input });
    const a = answer(joined);
    return Promise.resolve(
      a === undefined ? { ok: false, stdout: '', stderr: `fake: no answer for ${joined}` } : { ok: true, stdout: '', stderr: '', ...a },
    );
  };
  return { run, calls };
}

describe('loadUpstreamScenarios against a fake kubectl', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'upstream-features-'));
    await mkdir(join(dir, 'test/e2e/features'), { recursive: true });
    await mkdir(join(dir, 'test/e2e/steps/testdata'), { recursive: true });
    await writeFile(
      join(dir, 'test/e2e/steps/testdata/namespace-template.yaml'),
      'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${NAMESPACE}\n',
    );
    await writeFile(
      join(dir, 'test/e2e/features/cos.feature'),
      `@BoxcutterRuntime
Feature: COS
  Background:
    Given OLM is available

  Scenario: applied and reported
    Given namespace "\${TEST_NAMESPACE}" is available
    When ClusterObjectSet is applied
      """
      apiVersion: olm.operatorframework.io/v1
      kind: ClusterObjectSet
      metadata:
        name: \${COS_NAME}
      spec:
        phases:
        - name: p
          objects:
          - object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: \${TEST_NAMESPACE}}}
      """
    Then ClusterObjectSet "\${COS_NAME}" reports Available as False with Reason ProbeFailure and Message:
      """
        Object ConfigMap.v1 \${TEST_NAMESPACE}/c:
        not ready
      """

  @DeploymentConfig
  Scenario: gated off
    Then this step has no definition

  Scenario: unknown step
    Then this step has no definition
`,
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const gatesJson = JSON.stringify({
    spec: { template: { spec: { containers: [{ name: 'manager', args: ['--feature-gates=BoxcutterRuntime=true'] }] } } },
  });

  it('runs each step through kubectl with the scenario names, waits for the condition, and cleans up', async () => {
    let polls = 0;
    const k = fakeKubectl((args) => {
      if (args.endsWith('operator-controller-controller-manager -o json')) return { stdout: gatesJson };
      if (args.includes('@.type=="Available")].status')) return { stdout: 'True' };
      if (args.startsWith('apply') || args.startsWith('delete')) return {};
      const cos = /^get clusterobjectset cos-(x\d+) /.exec(args);
      if (cos !== null) {
        polls++;
        const message = polls < 3 ? 'other' : `Object ConfigMap.v1 ns-${cos[1] ?? ''}/c: not ready`;
        return { stdout: JSON.stringify({ type: 'Available', status: 'False', reason: 'ProbeFailure', message }) };
      }
      return undefined;
    });
    const [scenario] = await loadUpstreamScenarios({
      features: ['cos'],
      tags: 'not @DeploymentConfig',
      env: {},
      moduleDir: dir,
      kubectlRunner: k.run,
      idPrefix: 'x',
      wait: { timeoutMs: 5_000, tickMs: 1 },
    });
    expect(scenario?.name).toBe('cos: applied and reported');
    const id = `x${scenario?.scenario.id ?? ''}`;
    await scenario?.run();
    expect(polls).toBeGreaterThanOrEqual(3);
    const applied = k.calls.filter((c) => c.args === 'apply -f -').map((c) => c.input ?? '');
    expect(applied[0]).toContain(`name: ns-${id}`);
    const cos = JSON.parse(applied[1] ?? '{}') as { metadata: { name: string; annotations: Record<string, string> }; spec: unknown };
    expect(cos.metadata.name).toBe(`cos-${id}`);
    expect(cos.metadata.annotations).toEqual({
      'e2e.olm.operatorframework.io/feature': 'cos',
      'e2e.olm.operatorframework.io/scenario': 'applied and reported',
    });
    expect(JSON.stringify(cos.spec)).toContain(`"namespace":"ns-${id}"`);
    const deletes = k.calls.filter((c) => c.args.startsWith('delete')).map((c) => c.args);
    expect(deletes).toEqual(
      expect.arrayContaining([`delete clusterobjectset cos-${id} --ignore-not-found=true`, `delete namespace ns-${id} --ignore-not-found=true`]),
    );
  });

  it('fails with the step text and the last thing seen when a wait times out', async () => {
    const k = fakeKubectl((args) => {
      if (args.endsWith('-o json')) return { stdout: gatesJson };
      if (args.includes('@.type=="Available")].status')) return { stdout: 'False' };
      return undefined;
    });
    const [scenario] = await loadUpstreamScenarios({
      features: ['cos'],
      env: {},
      moduleDir: dir,
      kubectlRunner: k.run,
      wait: { timeoutMs: 20, tickMs: 1 },
    });
    const err = await scenario?.run().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamStepError);
    expect((err as UpstreamStepError).step).toBe('OLM is available');
    expect((err as Error).message).toMatch(/last seen: Available=False/);
  });

  it('skips a scenario whose feature-gate tag is off, and fails an unknown step clearly', async () => {
    const k = fakeKubectl((args) =>
      args.endsWith('-o json') ? { stdout: gatesJson } : args.includes('Available")].status') ? { stdout: 'True' } : undefined,
    );
    const scenarios = await loadUpstreamScenarios({
      features: ['cos'],
      env: {},
      moduleDir: dir,
      kubectlRunner: k.run,
      wait: { timeoutMs: 20, tickMs: 1 },
    });
    expect(scenarios.map((s) => s.name)).toEqual(['cos: applied and reported', 'cos: gated off', 'cos: unknown step']);
    // what an e2e file passes to it(): the scenario's run is a vitest test function
    const asTest: TestFunction | undefined = scenarios[1]?.run;
    expect(asTest).toBeTypeOf('function');
    const skipped: string[] = [];
    await scenarios[1]?.run({ skip: (note) => skipped.push(note ?? '') });
    expect(skipped).toEqual(['feature gate DeploymentConfig is disabled']);
    await expect(scenarios[2]?.run()).rejects.toThrow('no step definition for: this step has no definition');
  });
});

describe("upstream's feature files (from its Go module)", () => {
  let moduleDir: string | undefined;
  let unavailable = '';
  beforeAll(async () => {
    try {
      moduleDir = await upstreamModuleDir(process.env);
    } catch (err) {
      unavailable = err instanceof Error ? err.message : String(err);
      console.warn(`skipping: upstream's module is unavailable (${unavailable})`);
    }
  }, 300_000);

  it('parses revision.feature: 9 scenarios, each starting with the Background', async ({ skip }) => {
    if (moduleDir === undefined) return skip(`go or upstream's module unavailable: ${unavailable}`);
    const scenarios = await readUpstreamFeatures(moduleDir, ['revision']);
    expect(scenarios).toHaveLength(9);
    for (const s of scenarios) {
      expect(s.tags).toContain('@BoxcutterRuntime');
      expect(s.steps[0]?.text).toBe('OLM is available');
    }
    expect(scenarios.filter((s) => parseTagExpression('@BoxcutterRuntime and not @ProgressDeadline')(s.tags))).toHaveLength(7);
    const cosStep = scenarios[0]?.steps.find((s) => s.text === 'ClusterObjectSet is applied');
    expect(cosStep?.docString).toMatch(/^apiVersion: olm\.operatorframework\.io\/v1\nkind: ClusterObjectSet\n/);
  });

  it('has a definition for every step of revision.feature and of the @BoxcutterRuntime scenarios', async ({ skip }) => {
    if (moduleDir === undefined) return skip(`go or upstream's module unavailable: ${unavailable}`);
    const box = parseTagExpression('@BoxcutterRuntime');
    const missing: Record<string, string[]> = {};
    const missingAll: Record<string, string[]> = {};
    for (const feature of ['revision', 'install', 'update', 'status', 'user-managed-fields']) {
      const scenarios = await readUpstreamFeatures(moduleDir, [feature]);
      missing[feature] = [...new Set(unmatchedSteps(scenarios.filter((s) => box(s.tags))).map((u) => u.step))];
      missingAll[feature] = [...new Set(unmatchedSteps(scenarios).map((u) => u.step))];
    }
    console.info(
      `steps without a definition, @BoxcutterRuntime scenarios: ${JSON.stringify(missing, null, 2)}\nall scenarios of these features: ${JSON.stringify(missingAll, null, 2)}`,
    );
    expect(missingAll['revision']).toEqual([]);
    expect(missing).toEqual({ revision: [], install: [], update: [], status: [], 'user-managed-fields': [] });
  });
});

describe("upstream's per-scenario catalogs", () => {
  const table = [
    ['package', 'version', 'channel', 'replaces', 'contents'],
    ['test', '1.0.0', 'alpha', '', 'CRD, Deployment, ConfigMap'],
    ['test', '1.0.0', 'beta', '', ''],
    ['test', '1.0.1', 'beta', '1.0.0', 'CRD, Deployment, ConfigMap'],
    ['test', '1.0.2', 'alpha', '1.0.0', 'BadImage'],
  ];

  it('reads the table into packages, bundles once per version, and channels with their entries', () => {
    const [pkg, ...rest] = parseCatalogTable(table);
    expect(rest).toEqual([]);
    expect(pkg?.bundles.map((b) => b.version)).toEqual(['1.0.0', '1.0.1', '1.0.2']);
    expect(pkg?.channels).toEqual([
      {
        name: 'alpha',
        entries: [
          { version: '1.0.0', replaces: '' },
          { version: '1.0.2', replaces: '1.0.0' },
        ],
      },
      {
        name: 'beta',
        entries: [
          { version: '1.0.0', replaces: '' },
          { version: '1.0.1', replaces: '1.0.0' },
        ],
      },
    ]);
    expect(pkg?.bundles[2]?.contents).toMatchObject({ crd: true, deployment: true, badImage: true });
    expect(parseContents('Property(olm.test-property=some-value), InstallMode(OwnNamespace), LargeCRD(3)')).toMatchObject({
      crd: true,
      largeCrdFields: 3,
      installModes: ['OwnNamespace'],
      properties: [{ type: 'olm.test-property', value: 'some-value' }],
    });
    expect(() => parseCatalogTable([table[0] ?? [], ['p', '1', 'a', '', 'CRD'], ['p', '1', 'b', '', 'ConfigMap']])).toThrow(/duplicate bundle p\/1/);
  });

  it('writes the FBC with scenario-suffixed names and the images the cluster pulls', () => {
    const fbc = catalogFbc(parseCatalogTable(table), '9', (name, v) => `reg:5000/bundles/${name}:v${v}`);
    const docs = fbc.split('\n---\n');
    expect(docs[0]).toBe('schema: olm.package\nname: test-9');
    expect(docs[1]).toBe(
      'schema: olm.channel\nname: alpha\npackage: test-9\nentries:\n  - name: test-9.1.0.0\n  - name: test-9.1.0.2\n    replaces: test-9.1.0.0',
    );
    expect(docs.filter((d) => d.startsWith('schema: olm.bundle'))).toHaveLength(3);
    expect(fbc).toContain('image: reg:5000/bundles/test-9:v1.0.1');
  });

  it("generates bundles this project's bundle parser accepts, with the Deployment the steps name", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'upstream-bundle-'));
    try {
      const files = generatedBundleFiles('9', 'test-9', '1.0.0', parseContents('CRD, Deployment, ConfigMap, Property(olm.test-property=v)'));
      const bundle = await loadBundleDir(await writeBundleDir(dir, files));
      expect(bundle.packageName).toBe('test-9');
      expect(bundle.csv.metadata?.name).toBe('test-9.v1.0.0');
      const text = [...files.values()].join('\n');
      expect(text).toContain('"name":"test-operator-9"');
      expect(text).toContain('"readinessProbe":{"httpGet":{"path":"/ready","port":8080}');
      expect(text).toContain('"name":"test-configmap-9"');
      expect(text).toContain('e2e-9tests.e2e-9.e2e.operatorframework.io');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
