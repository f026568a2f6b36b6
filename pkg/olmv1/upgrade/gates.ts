/**
 * The feature gates `olmv1 upgrade plan` renders the pick with: operator-controller's, read with
 * its own options parser and defaults (injected: the parser lives with operator-controller's
 * command line). From `--feature-gates` when given, else from operator-controller's Deployment in
 * the system namespace, else its defaults (decision 0137). Only with its defaults does the
 * deployed release tell the certificate provider (its objects show the one it was rendered
 * with); `--cert-provider` sets it in any case.
 */
import { renderedCertProvider, type CertProviderName, type RenderGates } from '../../operator-controller/render/index.ts';
import { readControllerGateArgs } from '../../operator-controller/upgradeplan/index.ts';
import { errorMessage, err, ok, type Result } from '../../shared/errors/index.ts';
import type { KubeClient, KubeObject } from '../../shared/kube/index.ts';

/** The gates a plan was rendered with, and where they come from (`gates` of `-o json`). */
export interface PlanGates {
  /** `flag`: --feature-gates; `deployment`: operator-controller's Deployment; `defaults`: neither could be read. */
  source: 'flag' | 'deployment' | 'defaults';
  /** Where from, in words, and what set the certificate provider when not those gates. */
  from: string;
  /** The gates that change rendering, as the pick was rendered. */
  values: RenderGates;
}

/**
 * The gates operator-controller runs with under these occurrences of `--feature-gates`, as its
 * own options parser decides (its names, defaults, AllAlpha/AllBeta).
 * @throws Error with the parser's text when it refuses them.
 */
export type ControllerGateParser = (occurrences: readonly string[]) => RenderGates;

/** What the plan was told. */
interface GateFlags {
  /** The occurrences of `--feature-gates`; undefined: not given. */
  featureGates?: readonly string[] | undefined;
  /** --cert-provider; undefined: not given. */
  certProvider?: CertProviderName | undefined;
}

/**
 * The gates to render with (see the module comment); `installed`: the deployed release's objects.
 * A refusal of operator-controller's Deployment's gates by its parser is a value.
 */
export async function planGates(
  client: KubeClient,
  systemNamespace: string,
  flags: GateFlags,
  installed: readonly KubeObject[],
  parse: ControllerGateParser,
): Promise<Result<PlanGates, string>> {
  let source: PlanGates['source'] = 'flag';
  let from = '--feature-gates';
  let occurrences = flags.featureGates ?? [];
  if (flags.featureGates === undefined) {
    const read = await readControllerGateArgs(client, systemNamespace);
    source = read.found ? 'deployment' : 'defaults';
    from = read.found ? `the Deployment ${read.deployment}` : `operator-controller's defaults: ${read.reason}`;
    occurrences = read.found ? read.occurrences : [];
  }
  let gates: RenderGates;
  try {
    gates = parse(occurrences);
  } catch (e) {
    return err(`${from} has --feature-gates operator-controller refuses: ${errorMessage(e)}; name the gates with --feature-gates`);
  }
  let values: RenderGates = {
    SingleOwnNamespaceInstallSupport: gates.SingleOwnNamespaceInstallSupport,
    DeploymentConfig: gates.DeploymentConfig,
    WebhookProviderCertManager: gates.WebhookProviderCertManager,
    WebhookProviderOpenshiftServiceCA: gates.WebhookProviderOpenshiftServiceCA,
  };
  const told = source === 'defaults' ? renderedCertProvider(installed) : undefined;
  if (flags.certProvider !== undefined) {
    values = withProvider(values, flags.certProvider);
    from += `; certificate provider ${flags.certProvider} from --cert-provider`;
  } else if (told !== undefined) {
    values = withProvider(values, told);
    from += `; certificate provider ${told} as the deployed release has it`;
  }
  return ok({ source, from, values });
}

/** `values` with the webhook-provider gates that give `provider` (cert-manager wins when both are on). */
function withProvider(values: RenderGates, provider: CertProviderName): RenderGates {
  return provider === 'cert-manager'
    ? { ...values, WebhookProviderCertManager: true }
    : { ...values, WebhookProviderCertManager: false, WebhookProviderOpenshiftServiceCA: true };
}

/** `Feature gates: A=true, B=false (from ...)`: the plan's line. */
export function formatGates(g: PlanGates): string {
  const list = Object.entries(g.values)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, on]) => `${name}=${String(on)}`)
    .join(', ');
  return `Feature gates: ${list} (from ${g.from})`;
}
