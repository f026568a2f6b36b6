/**
 * Upstream OLM v1's e2e features, run as written against a cluster: the feature files come from
 * upstream's Go module at test time (nothing of upstream's is in this repository), are parsed
 * into pickles, selected by tag expression, skipped when a feature-gate tag is off (as upstream's
 * hooks do), and each step runs through STEP_DEFINITIONS.
 *
 *   const scenarios = await loadUpstreamScenarios({
 *     features: ['revision'], tags: '@BoxcutterRuntime', env: process.env,
 *     kubectl: '/path/to/kubectl', kubeconfig: '/path/to/admin.kubeconfig',
 *   });
 *   for (const s of scenarios) it(s.name, s.run, 30 * 60_000); // a gated-off scenario reports skipped
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findGoToolchain, runGo } from '../../../pkg/olmv1/localstack/index.ts';
import type { CatalogPort, ScenarioContext } from './context.ts';
import { parseFeatures, type ParsedScenario } from './gherkin.ts';
import { kubectlAt, waitPolicyFrom, type Kubectl, type WaitPolicy } from './kubectl.ts';
import { cleanupScenario, matchStep, STEP_DEFINITIONS, type StepDefinition } from './steps.ts';
import { parseTagExpression } from './tags.ts';
import { scenarioNames } from './vars.ts';

export type { CatalogPort, ScenarioContext } from './context.ts';
export type { ParsedScenario } from './gherkin.ts';
export { STEP_DEFINITIONS, type StepDefinition } from './steps.ts';

export const UPSTREAM_MODULE = 'github.com/operator-framework/operator-controller';
/** The release whose features are run (its revision.feature equals upstream's main). */
export const UPSTREAM_FEATURES_VERSION = 'v1.11.0';
const FEATURES_DIR = 'test/e2e/features';
const TESTDATA_DIR = 'test/e2e/steps/testdata';
const OLM_DEPLOYMENT = 'operator-controller-controller-manager';

/** Upstream's module directory in Go's module cache (`go mod download`), at `version`. */
export async function upstreamModuleDir(env: NodeJS.ProcessEnv, version = UPSTREAM_FEATURES_VERSION): Promise<string> {
  const go = await findGoToolchain(env);
  const dir = await mkdtemp(join(tmpdir(), 'olmv1-upstream-features-'));
  try {
    await writeFile(join(dir, 'go.mod'), 'module olmv1.local/upstream-features\n');
    const { stdout } = await runGo(go, ['mod', 'download', '-json', `${UPSTREAM_MODULE}@${version}`], dir);
    const download = JSON.parse(stdout) as { Dir?: string; Error?: string };
    if (download.Dir === undefined) throw new Error(`go mod download ${UPSTREAM_MODULE}@${version}: ${download.Error ?? 'no directory'}`);
    return download.Dir;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Reads upstream's feature files (names without ".feature") from its module directory and parses them. */
export async function readUpstreamFeatures(moduleDir: string, features: readonly string[]): Promise<ParsedScenario[]> {
  const files = await Promise.all(
    features.map(async (f) => {
      const uri = `${FEATURES_DIR}/${f}.feature`;
      return { uri, text: await readFile(join(moduleDir, uri), 'utf8') };
    }),
  );
  return parseFeatures(files);
}

/** Upstream's feature gates before it reads the Deployment (hooks.go). */
export const UPSTREAM_DEFAULT_GATES: ReadonlyMap<string, boolean> = new Map([
  ['WebhookProviderCertManager', true],
  ['SingleOwnNamespaceInstallSupport', false],
  ['WebhookProviderOpenshiftServiceCA', false],
  ['BoxcutterRuntime', false],
  ['DeploymentConfig', false],
  ['CatalogdHA', false],
]);

/**
 * The gates the `manager` container's `--feature-gates=Name=bool` args set (one gate per arg,
 * as upstream's pattern reads them), over UPSTREAM_DEFAULT_GATES.
 */
export function gatesFromDeployment(deployment: unknown, defaults: ReadonlyMap<string, boolean> = UPSTREAM_DEFAULT_GATES): Map<string, boolean> {
  const gates = new Map(defaults);
  const containers =
    (deployment as { spec?: { template?: { spec?: { containers?: { name?: string; args?: unknown[] }[] } } } } | undefined)?.spec?.template?.spec
      ?.containers ?? [];
  for (const c of containers) {
    if (c.name !== 'manager') continue;
    for (const arg of c.args ?? []) {
      const m = typeof arg === 'string' ? /--feature-gates=([A-Za-z0-9]+)=(true|false)/.exec(arg) : null;
      if (m?.[1] !== undefined) gates.set(m[1], m[2] === 'true');
    }
  }
  return gates;
}

/** Reads the gates from operator-controller's Deployment in `olmNamespace`. */
export async function readFeatureGates(kubectl: Kubectl, olmNamespace: string): Promise<Map<string, boolean>> {
  const r = await kubectl(['get', 'deployment', '-n', olmNamespace, OLM_DEPLOYMENT, '-o', 'json']);
  if (!r.ok) throw new Error(`cannot read the feature gates from deployment ${olmNamespace}/${OLM_DEPLOYMENT}: ${r.stderr.trim()}`);
  return gatesFromDeployment(JSON.parse(r.stdout));
}

/** The gate tag that makes upstream skip this scenario (a tag naming a known gate that is off), if any. */
export function disabledGateTag(tags: readonly string[], gates: ReadonlyMap<string, boolean>): string | undefined {
  return tags.find((t) => gates.get(t.slice(1)) === false);
}

/** Steps of each scenario no definition matches, or whose doc string / table is missing. */
export function unmatchedSteps(
  scenarios: readonly ParsedScenario[],
  defs: readonly StepDefinition[] = STEP_DEFINITIONS,
): { scenario: string; step: string }[] {
  const out: { scenario: string; step: string }[] = [];
  for (const s of scenarios) {
    for (const st of s.steps) {
      const m = matchStep(defs, st.text);
      const missingArg =
        m?.def.argument === 'docString' ? st.docString === undefined : m?.def.argument === 'dataTable' ? st.dataTable === undefined : false;
      if (m === undefined || missingArg) out.push({ scenario: `${s.featureName}: ${s.name}`, step: st.text });
    }
  }
  return out;
}

/** Thrown by a scenario's run when a step fails: the step's text and why. */
export class UpstreamStepError extends Error {
  readonly step: string;

  constructor(scenario: string, step: string, reason: string, cause?: unknown) {
    super(`${scenario}\n  step: ${step}\n  ${reason}`, { cause });
    this.name = 'UpstreamStepError';
    this.step = step;
  }
}

/** Options of loadUpstreamScenarios. */
export interface LoadOptions {
  /** Feature file names without ".feature", e.g. ["revision", "install"]. */
  features: readonly string[];
  /** A Cucumber tag expression, e.g. "@BoxcutterRuntime and not @Serial"; all when omitted. */
  tags?: string;
  /** Environment for `go` (the module download) and kubectl. */
  env: NodeJS.ProcessEnv;
  /** kubectl's path and the kubeconfig the steps act with; or `kubectlRunner` instead. */
  kubectl?: string;
  kubeconfig?: string;
  kubectlRunner?: Kubectl;
  /** Upstream's module directory; downloaded with go when omitted. */
  moduleDir?: string;
  /** OLM's namespace (default olmv1-system). */
  olmNamespace?: string;
  /** Gates to use instead of reading operator-controller's Deployment at the first run. */
  featureGates?: ReadonlyMap<string, boolean>;
  /** Prefixed to each pickle id in ${SCENARIO_ID} and the names derived from it, so runs do not collide. */
  idPrefix?: string;
  /** Each step's wait; upstream's (5 minutes, or env E2E_STEP_TIMEOUT; 1 second ticks) when omitted. */
  wait?: WaitPolicy;
  /** Builds the catalogs of "a catalog ... with packages"; those steps fail without it. */
  catalogs?: CatalogPort;
  /**
   * Delete what a passing scenario created, as upstream's cleanup does (default true; its
   * kubectl delete waits for finalizers, a namespace's included).
   */
  cleanup?: boolean;
  /** Receives each step as it starts (progress logs). */
  onStep?: (scenario: string, step: string) => void;
}

/** What vitest's `it` passes: its `skip`, to report a gated-off scenario as skipped. */
interface RunContext {
  skip?: (note?: string) => void;
}

/** One selected scenario, runnable against the cluster. */
export interface UpstreamScenario {
  /** "<feature>: <scenario name>". */
  name: string;
  tags: readonly string[];
  scenario: ParsedScenario;
  run(ctx?: RunContext): Promise<void>;
}

/**
 * Upstream's scenarios of `features` selected by `tags`, each runnable through the step table.
 * A scenario whose feature-gate tag is off is skipped at run time (gates read once, at the
 * first run); a step with no definition fails with "no step definition for: <step>"; a
 * scenario that passes deletes what it created, one that fails leaves it for inspection.
 */
export async function loadUpstreamScenarios(o: LoadOptions): Promise<UpstreamScenario[]> {
  const moduleDir = o.moduleDir ?? (await upstreamModuleDir(o.env));
  const select = parseTagExpression(o.tags ?? '');
  const scenarios = (await readUpstreamFeatures(moduleDir, o.features)).filter((s) => select(s.tags));
  const olmNamespace = o.olmNamespace ?? 'olmv1-system';
  const runner = o.kubectlRunner ?? kubectlAt(o.kubectl ?? 'kubectl', o.kubeconfig ?? '', o.env);
  let gates: Promise<ReadonlyMap<string, boolean>> | undefined;
  const featureGates = (): Promise<ReadonlyMap<string, boolean>> =>
    (gates ??= o.featureGates !== undefined ? Promise.resolve(o.featureGates) : readFeatureGates(runner, olmNamespace));

  return scenarios.map((scenario) => {
    const name = `${scenario.featureName}: ${scenario.name}`;
    return {
      name,
      tags: scenario.tags,
      scenario,
      async run(runCtx?: RunContext): Promise<void> {
        const g = await featureGates();
        const off = disabledGateTag(scenario.tags, g);
        if (off !== undefined) {
          runCtx?.skip?.(`feature gate ${off.slice(1)} is disabled`);
          return;
        }
        const ctx: ScenarioContext = {
          names: { ...scenarioNames(`${o.idPrefix ?? ''}${scenario.id}`, olmNamespace), catalogPackageNames: new Map(), catalogs: new Map() },
          featureName: scenario.featureName,
          scenarioName: scenario.name,
          addedResources: [],
          removedResources: [],
          extensionObjects: [],
          lastApplyStderr: '',
          kubectl: runner,
          wait: o.wait ?? waitPolicyFrom(o.env),
          featureGates: g,
          testdataDir: join(moduleDir, TESTDATA_DIR),
        };
        if (o.catalogs !== undefined) ctx.catalogs = o.catalogs;
        for (const st of scenario.steps) {
          const m = matchStep(STEP_DEFINITIONS, st.text);
          if (m === undefined) throw new UpstreamStepError(name, st.text, `no step definition for: ${st.text}`);
          o.onStep?.(name, st.text);
          try {
            await m.def.run(ctx, m.captures, {
              ...(st.docString === undefined ? {} : { docString: st.docString }),
              ...(st.dataTable === undefined ? {} : { dataTable: st.dataTable }),
            });
          } catch (err) {
            throw new UpstreamStepError(name, st.text, err instanceof Error ? err.message : String(err), err);
          }
        }
        if (o.cleanup !== false) await cleanupScenario(ctx);
      },
    };
  });
}
