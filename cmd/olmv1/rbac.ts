/**
 * `olmv1 rbac`: the ServiceAccount and minimal RBAC to install, upgrade and uninstall exactly this
 * bundle (decision 0003), then its escalation warnings on stderr, which never change stdout or the
 * exit code.
 */
import {
  formatEscalationWarning,
  type CertProviderName,
  type EscalationWarning,
  type RenderOptions,
} from '../../pkg/operator-controller/render/index.ts';
import { installerRbac } from '../../pkg/olmv1/install/index.ts';
import type { KubeObject, RegistryV1Bundle } from '../../pkg/operator-controller/bundle/index.ts';
import {
  BUNDLE_FLAGS_HELP,
  BUNDLE_SOURCE_HELP,
  CommandError,
  buildRenderOptions,
  formatObjects,
  loadBundle,
  parseCommandArgs,
  runCommand,
  type BundleSourceDeps,
} from './render.ts';
import type { CommandIO } from './io.ts';

const RBAC_USAGE = `Usage: olmv1 rbac DIR|IMAGE --install-namespace NS --service-account NAME [--watch-namespace NS]
         [--cert-provider cert-manager|openshift-service-ca] [--config FILE] [-o yaml|json]
         [--authfile FILE] [--ca-file FILE]

Prints the ServiceAccount NAME in NS and the minimal ClusterRoles/Roles and bindings that let
it install, upgrade and uninstall exactly this bundle under operator-controller, ready for
kubectl apply -f -.

${BUNDLE_SOURCE_HELP}

Flags:
  --service-account NAME   the ServiceAccount the ClusterExtension names (required)
${BUNDLE_FLAGS_HELP}
Output:
  stdout: the objects. stderr: warnings about grants that cannot be derived offline, then
  about grants that amount to privilege escalation ("*" in rules, escalate/bind/impersonate,
  rights on system: objects, Roles outside the install namespace, bindings of roles the
  bundle does not ship); errors.

Exit codes:
  0  printed
  1  the bundle or configuration was refused (upstream's message), or could not be read
  2  usage error`;

/** Runs `olmv1 rbac`; `args` are the arguments after `rbac`. */
export async function runRbac(args: readonly string[], io: CommandIO, deps: BundleSourceDeps): Promise<number> {
  return runCommand(io, async () => {
    const parsed = parseCommandArgs(args, RBAC_USAGE, { 'service-account': { type: 'string' }, config: { type: 'string' } });
    const serviceAccount = parsed.values['service-account'];
    if (serviceAccount === undefined || serviceAccount === '') throw new CommandError(`--service-account is required\n${RBAC_USAGE}`, 2);
    const bundle = await loadBundle(parsed, deps);

    const objects = installRbac(bundle, await buildRenderOptions(parsed), serviceAccount, parsed, io);
    io.stdout.write(formatObjects(objects, parsed.output));
  });
}

/**
 * The ServiceAccount `serviceAccount` and the RBAC that lets it install `bundle` rendered with
 * `options` (pkg/olmv1/install's installerRbac: what `olmv1 rbac` prints; `olmv1 install` creates
 * it). Its notes, then the privilege-escalation warnings, go to `io.stderr`.
 * @throws CommandError (exit 1) when the bundle or configuration is refused.
 */
export function installRbac(
  bundle: RegistryV1Bundle,
  options: RenderOptions,
  serviceAccount: string,
  args: { installNamespace: string; certProvider?: CertProviderName },
  io: CommandIO,
): KubeObject[] {
  const rbac = installerRbac(bundle, options, serviceAccount, args);
  if (!rbac.ok) throw new CommandError(rbac.error, 1);
  printRbacWarnings(rbac.value, io);
  return rbac.value.objects;
}

/** The notes of `rbac`, then its escalation warnings under their header, on stderr. */
export function printRbacWarnings(
  rbac: { warnings: readonly string[]; escalations: readonly EscalationWarning[] },
  io: Pick<CommandIO, 'stderr'>,
): void {
  for (const warning of rbac.warnings) io.stderr.write(`warning: ${warning}\n`);
  if (rbac.escalations.length > 0) {
    io.stderr.write(`${escalationHeader(rbac.escalations)}\n`);
    for (const w of rbac.escalations) io.stderr.write(`warning: ${formatEscalationWarning(w)}\n`);
  }
}

/** `N grant(s) printed amount(s) to privilege escalation (M expected); review them before applying:` */
function escalationHeader(warnings: readonly EscalationWarning[]): string {
  const n = warnings.length;
  const expected = warnings.filter((w) => w.expected).length;
  const count = n === 1 ? '1 grant printed amounts' : `${n} grants printed amount`;
  const note = expected === 0 ? '' : ` (${expected} of them expected, as marked)`;
  return `${count} to privilege escalation${note}; review them before applying:`;
}
