// The condition messages upstream's reference lists outside resolution (api-and-controllers.md
// §1.3, applier-and-bundles.md §2.1, §2.2, §4.14 and §5.3), each held to its exact text, reason
// and status as the step that writes it does: nothing added after upstream's text. What this
// project knows beyond it goes to a Warning Event, which starts with what the condition's first
// line ends with (olmv1 status matches them so). Resolution's messages: upstream-messages.test.ts;
// the CRD upgrade-safety and ownership texts: steps-preflight.test.ts and steps-apply.test.ts.
import { describe, expect, it } from 'vitest';
import { installModes, testBundle } from '../../../test/fixtures/bundles/builder.ts';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';
import { recordingEvents, releaseApplier, withRulesReviews } from '../../../test/support/extension-ports.ts';
import { extensionState } from '../../../test/support/extension-state.ts';
import { withOwnerLabels } from '../applier/index.ts';
import type { RegistryV1Bundle } from '../bundle/index.ts';
import { ApiError } from '../../shared/kube/index.ts';
import { deprecationConditions } from '../resolve/index.ts';
import { Manifest, type Release } from '../release/index.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { setDeprecation, setInstalledFrom, setProgressingSucceeded } from './status.ts';
import { makePlan } from './plan.ts';
import { preauthorizeStep } from './steps-apply.ts';
import { renderStep } from './steps-pull.ts';
import { validateStep } from './steps-validate.ts';

const BUNDLE = { package: 'p', name: 'p.v1.0.0', version: '1.0.0', image: 'registry.example/p-bundle:v1.0.0' };
const FOR_BUNDLE = 'error for resolved bundle "p.v1.0.0" with version "1.0.0": ';
const VALIDATION = 'operation cannot proceed due to the following validation error(s): ';

function condition(s: ExtensionState, type: string) {
  const c = s.ce.status?.conditions?.find((x) => x.type === type);
  return c === undefined ? undefined : { status: c.status, reason: c.reason, message: c.message };
}

describe("upstream's Installed, Progressing and deprecation texts (api-and-controllers.md §1.3)", () => {
  it('Installed True/Succeeded names the image; False/Failed "No bundle installed"; Progressing "Desired state reached"', () => {
    const s = extensionState();
    const release: Release = {
      extension: 'ext',
      extensionUID: 'u',
      revision: 1,
      status: 'deployed',
      bundle: BUNDLE,
      manifest: Manifest.ofObjects([]),
      properties: [],
      description: 'Install complete',
    };
    setInstalledFrom(s.ce, release);
    expect(condition(s, 'Installed')).toEqual({
      status: 'True',
      reason: 'Succeeded',
      message: 'Installed bundle registry.example/p-bundle:v1.0.0 successfully',
    });
    setInstalledFrom(s.ce, undefined);
    expect(condition(s, 'Installed')).toEqual({ status: 'False', reason: 'Failed', message: 'No bundle installed' });
    setProgressingSucceeded(s.ce);
    expect(condition(s, 'Progressing')).toEqual({ status: 'True', reason: 'Succeeded', message: 'Desired state reached' });
  });

  it.each([
    [
      'installed, catalog data, nothing deprecated',
      'p.v1.0.0',
      true,
      ['not deprecated', 'package not deprecated', 'channel not deprecated', 'bundle not deprecated'],
    ],
    ['nothing installed', '', true, ['not deprecated', 'package not deprecated', 'channel not deprecated', 'no bundle installed yet']],
  ] as const)('deprecation conditions, %s', (_name, installed, data, messages) => {
    const s = extensionState();
    setDeprecation(s.ce, deprecationConditions(installed, undefined, data));
    expect(['Deprecated', 'PackageDeprecated', 'ChannelDeprecated', 'BundleDeprecated'].map((t) => condition(s, t)?.message)).toEqual(messages);
  });

  it("deprecation without catalog data: Unknown/DeprecationStatusUnknown with upstream's text", () => {
    const s = extensionState();
    setDeprecation(s.ce, deprecationConditions('p.v1.0.0', undefined, false));
    expect(condition(s, 'Deprecated')).toEqual({
      status: 'Unknown',
      reason: 'DeprecationStatusUnknown',
      message: 'deprecation status unknown: catalog data unavailable',
    });
  });
});

describe("upstream v1.10's validation texts (applier-and-bundles.md §5.3)", () => {
  it.each([
    ['a missing ServiceAccount', ['ns'], undefined, `${VALIDATION}service account "sa" not found in namespace "ns"`],
    ['a missing namespace (upstream reads only the ServiceAccount)', [], undefined, `${VALIDATION}service account "sa" not found in namespace "ns"`],
    [
      'a failed read',
      [],
      new ApiError(500, 'InternalError', 'etcdserver: request timed out'),
      `${VALIDATION}error getting service account: etcdserver: request timed out`,
    ],
  ] as const)('%s: Installed Unknown/Failed and Progressing True/Retrying, the same text', async (_name, present, failure, message) => {
    const events: string[] = [];
    const cluster = fakeCluster(failure === undefined ? {} : { refuse: { 'get ServiceAccount ns/sa': failure } });
    for (const name of present) cluster.objects.set(`Namespace ${name}`, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    const client = cluster.client;
    const s = extensionState();
    await validateStep({ client, events: recordingEvents(events) }).run(s);
    expect(condition(s, 'Installed')).toEqual({ status: 'Unknown', reason: 'Failed', message });
    expect(condition(s, 'Progressing')).toEqual({ status: 'True', reason: 'Retrying', message });
    const line = message.slice(VALIDATION.length);
    // The Event, when there is one, starts with what the condition ends with.
    expect(events).toHaveLength(failure === undefined ? 1 : 0);
    for (const e of events) expect(e.startsWith(`Warning InstallerMissing: ${line}\n`)).toBe(true);
  });
});

/** Runs the render step on `bundle` with `config` and returns Progressing, and the Events recorded. */
async function rendered(bundle: RegistryV1Bundle, config?: Record<string, unknown>, singleOwn = true) {
  const events: string[] = [];
  const s = extensionState({
    target: { bundle: BUNDLE },
    bundle,
    ...(config === undefined ? {} : { spec: { namespace: 'ns', config: { configType: 'Inline', inline: config } } }),
  });
  const step = renderStep({
    schemas: { schemaFor: () => Promise.resolve(undefined) },
    features: { webhookSupport: false, singleOwnNamespaceSupport: singleOwn, deploymentConfigSupport: false },
    events: recordingEvents(events),
  });
  await Promise.resolve()
    .then(() => step.run(s))
    .catch(() => undefined);
  return { progressing: condition(s, 'Progressing'), events };
}

const only = (...modes: string[]) => testBundle({ spec: { installModes: installModes(...modes) } });
const CONFIG = 'invalid ClusterExtension configuration: invalid configuration: ';

describe("upstream's rendering texts (applier-and-bundles.md §2.1, §2.2)", () => {
  it.each([
    ['OwnNamespace only, no watchNamespace', only('OwnNamespace'), undefined, `${CONFIG}required field "watchNamespace" is missing`],
    ['SingleNamespace only, no watchNamespace', only('SingleNamespace'), undefined, `${CONFIG}required field "watchNamespace" is missing`],
    ['AllNamespaces only, a watchNamespace', only('AllNamespaces'), { watchNamespace: 'w' }, `${CONFIG}unknown field "watchNamespace"`],
    // `'<v>' is not valid <format>: ` is the schema library's own wording (render/testdata/config-vectors.json).
    [
      'OwnNamespace only, another namespace',
      only('OwnNamespace'),
      { watchNamespace: 'w' },
      `${CONFIG}invalid format for field "watchNamespace": 'w' is not valid ownNamespaceInstallMode: invalid value "w": must be "ns" (the namespace where the operator is installed) because this operator only supports OwnNamespace install mode`,
    ],
    [
      'SingleNamespace only, the install namespace',
      only('SingleNamespace'),
      { watchNamespace: 'ns' },
      `${CONFIG}invalid format for field "watchNamespace": 'ns' is not valid singleNamespaceInstallMode: invalid value "ns": must be different from "ns" (the install namespace) because this operator uses SingleNamespace install mode to watch a different namespace`,
    ],
  ] as const)("%s: Progressing False/InvalidConfiguration, upstream's text alone", async (_name, bundle, config, message) => {
    const { progressing } = await rendered(bundle, config);
    expect(progressing).toEqual({ status: 'False', reason: 'InvalidConfiguration', message: `${FOR_BUNDLE}${message}` });
  });

  it("a missing watchNamespace: how to set it is the WatchNamespaceRequired Event, after upstream's text", async () => {
    const { events } = await rendered(only('OwnNamespace'));
    expect(events).toEqual([
      `Warning WatchNamespaceRequired: ${CONFIG}required field "watchNamespace" is missing\nthe bundle supports only the OwnNamespace install mode: set spec.config.inline.watchNamespace: ns, the install namespace`,
    ]);
  });

  it.each([
    [
      'an owned APIService',
      testBundle({ spec: { apiservicedefinitions: { owned: [{ name: 'v1.example.com' }] } } }),
      true,
      'unsupported bundle: apiServiceDefintions are not supported',
    ],
    [
      'webhooks without support',
      testBundle({ spec: { webhookdefinitions: [{ type: 'ValidatingAdmissionWebhook' }] } }),
      true,
      'unsupported bundle: webhookDefinitions are not supported',
    ],
    [
      'no AllNamespaces with the SingleOwn gate off',
      only('OwnNamespace'),
      false,
      'unsupported bundle: bundle does not support AllNamespaces install mode',
    ],
  ] as const)("%s: Progressing True/Retrying with upstream's gate text", async (_name, bundle, singleOwn, message) => {
    const { progressing, events } = await rendered(bundle, undefined, singleOwn);
    expect(progressing).toEqual({ status: 'True', reason: 'Retrying', message: `${FOR_BUNDLE}${message}` });
    expect(events).toEqual([]);
  });
});

describe("upstream v1.10's pre-authorization text (applier-and-bundles.md §5.3)", () => {
  it("Progressing True/Retrying: the bundle, upstream's line, the permission lines, nothing after them", async () => {
    const events: string[] = [];
    const client = withRulesReviews(fakeCluster().client, 'none', []);
    const s = extensionState();
    const objects = withOwnerLabels([{ apiVersion: 'v1', kind: 'Service', metadata: { name: 'm', namespace: 'ns' } }], 'ext');
    s.plan = makePlan(s, { bundle: BUNDLE }, { objects: Manifest.ofObjects(objects), properties: [] });
    await preauthorizeStep({ applier: releaseApplier({ scoped: { forServiceAccount: () => client } }), events: recordingEvents(events) }).run(s);
    const first = `${FOR_BUNDLE}pre-authorization failed: service account requires the following permissions to manage cluster extension:`;
    expect(condition(s, 'Progressing')).toEqual({
      status: 'True',
      reason: 'Retrying',
      message: [
        first,
        '  Namespace:"ns" APIGroups:[] Resources:[services] ResourceNames:[m] Verbs:[create,delete,get,patch]',
        '  Namespace:"ns" APIGroups:[] Resources:[services] Verbs:[list,watch]',
      ].join('\n'),
    });
    expect(events).toHaveLength(1);
    expect(events[0]?.startsWith(`Warning PreAuthorizationFailed: ${first}\n`)).toBe(true);
    expect(events[0]).toContain('olmv1 rbac registry.example/p-bundle:v1.0.0 --install-namespace ns --service-account sa');
  });
});
