/**
 * The feature gates `olmv1 upgrade plan` renders the pick with: operator-controller's, read with
 * its own options parser and defaults (cmd/operator-controller/options.ts). From `--feature-gates` when
 * given, else from operator-controller's Deployment in the system namespace, else its defaults
 * (decision 0137). Only with its defaults does the deployed release tell the certificate provider
 * (its objects show the one it was rendered with); `--cert-provider` sets it in any case.
 */
import { renderedCertProvider, type CertProviderName, type RenderGates } from '../../pkg/operator-controller/render/index.ts';
import { readControllerGateArgs } from '../../pkg/operator-controller/upgradeplan/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import type { KubeClient, KubeObject } from '../../pkg/shared/kube/index.ts';
import { parseOperatorControllerOptions } from '../operator-controller/options.ts';
import { EXIT } from './io.ts';
import { CommandError } from './render.ts';

/** The gates a plan was rendered with, and where they come from (`gates` of `-o json`). */
export interface PlanGates {
  /** `flag`: --feature-gates; `deployment`: operator-controller's Deployment; `defaults`: neither could be read. */
  source: 'flag' | 'deployment' | 'defaults';
  /** Where from, in words, and what set the certificate provider when not those gates. */
  from: string;
  /** The gates that change rendering, as the pick was rendered. */
  values: RenderGates;
}

/** What the plan was told. */
interface GateFlags {
  /** The occurrences of `--feature-gates`; undefined: not given. */
  featureGates?: string[] | undefined;
  /** --cert-provider; undefined: not given. */
  certProvider?: CertProviderName | undefined;
}

/**
 * The gates operator-controller runs with under these occurrences of `--feature-gates`: its own
 * options parser decides (as up-feature-gates.ts has it, a kubeconfig path is the one thing it
 * requires; nothing is read). Throws Error with the parser's text.
 */
function controllerGates(occurrences: readonly string[]) {
  const o = parseOperatorControllerOptions(['--kubeconfig', 'unused', ...occurrences.map((v) => `--feature-gates=${v}`)], {});
  if (o === 'help') throw new Error('unexpected --help');
  return o.featureGates;
}

/**
 * Checks `--feature-gates` as operator-controller would.
 * @throws CommandError (exit 2) with its parser's text.
 */
export function checkGatesFlag(occurrences: readonly string[], usage: string): void {
  try {
    controllerGates(occurrences);
  } catch (e) {
    throw new CommandError(`--feature-gates: ${errorMessage(e)}\n${usage}`, EXIT.usage);
  }
}

/**
 * The gates to render with (see the module comment); `installed`: the deployed release's objects.
 * @throws CommandError (exit 1) when operator-controller's Deployment has gates its parser refuses.
 */
export async function planGates(client: KubeClient, systemNamespace: string, flags: GateFlags, installed: readonly KubeObject[]): Promise<PlanGates> {
  let source: PlanGates['source'] = 'flag';
  let from = '--feature-gates';
  let occurrences = flags.featureGates ?? [];
  if (flags.featureGates === undefined) {
    const read = await readControllerGateArgs(client, systemNamespace);
    source = read.found ? 'deployment' : 'defaults';
    from = read.found ? `the Deployment ${read.deployment}` : `operator-controller's defaults: ${read.reason}`;
    occurrences = read.found ? read.occurrences : [];
  }
  let gates;
  try {
    gates = controllerGates(occurrences);
  } catch (e) {
    throw new CommandError(
      `${from} has --feature-gates operator-controller refuses: ${errorMessage(e)}; name the gates with --feature-gates`,
      EXIT.failed,
    );
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
  return { source, from, values };
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
