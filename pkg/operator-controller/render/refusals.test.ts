import { describe, expect, it } from 'vitest';
import { TerminalError } from '../../shared/errors/index.ts';
import { crd, deployment, installModes, testBundle } from '../../../test/fixtures/bundles/builder.ts';
import { render, renderBundle, renderFailureToError, type RenderFailure } from './index.ts';
import { generateCrds, generateOthers } from './gen-crds.ts';

function failure(result: ReturnType<typeof render>): RenderFailure {
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

const NS = 'install-ns';
const DNS_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const webhook = (type: string, generateName: string, extra: Record<string, unknown> = {}) => ({
  type,
  generateName,
  deploymentName: 'operator',
  containerPort: 443,
  admissionReviewVersions: ['v1'],
  sideEffects: 'None',
  ...extra,
});

describe('pre-render gates (2.1), in order, never terminal', () => {
  it.each([
    [
      'owned APIServices',
      testBundle({
        spec: { apiservicedefinitions: { owned: [{ name: 'v1.x' }] }, webhookdefinitions: [webhook('ValidatingAdmissionWebhook', 'v.x')] },
      }),
      {},
      'unsupported bundle: apiServiceDefintions are not supported',
    ],
    [
      'webhooks without webhook support',
      testBundle({ spec: { webhookdefinitions: [webhook('ValidatingAdmissionWebhook', 'v.x')] } }),
      {},
      'unsupported bundle: webhookDefinitions are not supported',
    ],
    [
      'webhooks with support but no provider',
      testBundle({ spec: { webhookdefinitions: [webhook('ValidatingAdmissionWebhook', 'v.x')] } }),
      { webhookSupport: true },
      'unsupported bundle: webhookDefinitions are not supported: certificate provider is nil',
    ],
    [
      'no AllNamespaces with SingleOwnNamespace support off',
      testBundle({ spec: { installModes: installModes('OwnNamespace') } }),
      { singleOwnNamespaceSupport: false },
      'unsupported bundle: bundle does not support AllNamespaces install mode',
    ],
    [
      'MultiNamespace only',
      testBundle({ spec: { installModes: installModes('MultiNamespace') } }),
      {},
      'unsupported bundle: bundle must support at least one of [AllNamespaces SingleNamespace OwnNamespace] install modes',
    ],
    [
      'no install modes at all',
      testBundle({ spec: { installModes: [] } }),
      {},
      'unsupported bundle: bundle must support at least one of [AllNamespaces SingleNamespace OwnNamespace] install modes',
    ],
  ])('%s', (_name, bundle, opts, message) => {
    expect(failure(render(bundle, { installNamespace: NS, ...opts }))).toEqual({ terminal: false, message });
  });
});

describe('configuration failures (2.2) are terminal with reason InvalidConfiguration', () => {
  it('refuses an OwnNamespace-only bundle without watchNamespace', () => {
    const f = failure(render(testBundle({ spec: { installModes: installModes('OwnNamespace') } }), { installNamespace: NS }));
    expect(f).toEqual({
      terminal: true,
      reason: 'InvalidConfiguration',
      message: 'invalid ClusterExtension configuration: invalid configuration: required field "watchNamespace" is missing',
    });
    const e = renderFailureToError(f);
    expect(e).toBeInstanceOf(TerminalError);
    expect((e as TerminalError).reason).toBe('InvalidConfiguration');
  });

  it('validates a given config even with SingleOwnNamespace support off', () => {
    const f = failure(render(testBundle(), { installNamespace: NS, singleOwnNamespaceSupport: false, config: { bogus: 1 } }));
    expect(f.message).toBe('invalid ClusterExtension configuration: invalid configuration: unknown field "bogus"');
    expect(renderFailureToError({ terminal: false, message: 'x' })).not.toBeInstanceOf(TerminalError);
  });

  it('uses watchNamespace as the target namespace', () => {
    const r = render(testBundle({ spec: { installModes: installModes('SingleNamespace') } }), {
      installNamespace: NS,
      config: { watchNamespace: 'team-a' },
    });
    if (!r.ok) throw new Error(r.error.message);
    const dep = r.value.find((o) => o.kind === 'Deployment') as unknown as {
      spec: { template: { metadata: { annotations: Record<string, string> } } };
    };
    expect(dep.spec.template.metadata.annotations['olm.targetNamespaces']).toBe('team-a');
  });
});

describe('target namespaces (2.3)', () => {
  const modes = (...m: string[]) => testBundle({ spec: { installModes: installModes(...m) } });
  it.each([
    [modes('SingleNamespace', 'MultiNamespace'), [], 'invalid target namespaces []: at least one target namespace must be specified'],
    [modes('OwnNamespace'), [], 'invalid target namespaces []: exactly one target namespace must be specified'],
    [modes('OwnNamespace'), [''], 'invalid target namespaces []: supported install modes [OwnNamespace] do not support targeting all namespaces'],
    [
      modes('SingleNamespace'),
      [NS],
      `invalid target namespaces [${NS}]: supported install modes [SingleNamespace] do not support targeting own namespace`,
    ],
    [
      modes('OwnNamespace', 'AllNamespaces'),
      ['other'],
      'invalid target namespaces [other]: supported install modes [AllNamespaces OwnNamespace] do not support target namespaces [other]',
    ],
    [
      modes('SingleNamespace', 'MultiNamespace'),
      [NS, 'a'],
      `invalid target namespaces [${NS} a]: supported install modes [MultiNamespace SingleNamespace] do not support targeting own namespace`,
    ],
    [
      modes('SingleNamespace', 'MultiNamespace', 'OwnNamespace'),
      ['', 'a'],
      'invalid target namespaces [ a]: supported install modes [MultiNamespace OwnNamespace SingleNamespace] do not support target namespaces [ a]',
    ],
    [
      modes('OwnNamespace', 'SingleNamespace'),
      ['a', 'b'],
      'invalid target namespaces [a b]: supported install modes [OwnNamespace SingleNamespace] do not support target namespaces [a b]',
    ],
  ])('%#: %j', (bundle, targets, message) => {
    expect(failure(renderBundle(bundle, { installNamespace: NS, targetNamespaces: targets }))).toEqual({
      terminal: false,
      message: `invalid option(s): ${message}`,
    });
  });

  it.each([
    [['AllNamespaces'], ['']],
    [['OwnNamespace'], [NS]],
    [['SingleNamespace'], ['a']],
    [
      ['MultiNamespace', 'OwnNamespace'],
      [NS, 'a', 'b'],
    ],
  ])('accepts %j with %j', (m, targets) => {
    expect(renderBundle(testBundle({ spec: { installModes: installModes(...m) } }), { installNamespace: NS, targetNamespaces: targets }).ok).toBe(
      true,
    );
  });
});

describe('bundle validators (2.4)', () => {
  const base = { installModes: installModes('AllNamespaces') };
  it.each([
    [
      'duplicate deployments',
      testBundle({ spec: { ...base, install: { spec: { deployments: [deployment('b'), deployment('a'), deployment('b'), deployment('a')] } } } }),
      "cluster service version contains duplicate strategy deployment spec 'a'\ncluster service version contains duplicate strategy deployment spec 'b'",
    ],
    [
      'deployment name not DNS-1123',
      testBundle({ spec: { ...base, install: { spec: { deployments: [deployment('Bad_Name')] } } } }),
      `invalid cluster service version strategy deployment name 'Bad_Name': ${DNS_MSG}`,
    ],
    [
      'duplicate CRDs',
      testBundle({ crds: [crd('xs', 'example.com'), crd('xs', 'example.com')] }),
      "bundle contains duplicate custom resource definition 'xs.example.com'",
    ],
    [
      'owned CRD missing',
      testBundle({ spec: { customresourcedefinitions: { owned: [{ name: 'ys.example.com' }] } } }),
      "cluster service definition references owned custom resource definition 'ys.example.com' not found in bundle",
    ],
    ['empty package name', testBundle({ packageName: '' }), 'package name is empty'],
    [
      'conversion webhook without AllNamespaces-only',
      testBundle({
        spec: {
          installModes: installModes('AllNamespaces', 'OwnNamespace'),
          customresourcedefinitions: { owned: [{ name: 'xs.example.com' }] },
          webhookdefinitions: [webhook('ConversionWebhook', 'c.x', { conversionCRDs: ['xs.example.com'] })],
        },
        crds: [crd('xs', 'example.com')],
      }),
      'bundle contains conversion webhook "c.x" and supports install modes [AllNamespaces OwnNamespace] - conversion webhooks are only supported for bundles that only support AllNamespaces install mode',
    ],
    [
      'webhook referencing an unknown deployment',
      testBundle({ spec: { webhookdefinitions: [webhook('ValidatingAdmissionWebhook', 'v.x', { deploymentName: 'ghost' })] } }),
      "webhook of type 'ValidatingAdmissionWebhook' with name 'v.x' references non-existent deployment 'ghost'",
    ],
    [
      'duplicate webhook names per type',
      testBundle({
        spec: {
          webhookdefinitions: [
            webhook('MutatingAdmissionWebhook', 'w.x'),
            webhook('MutatingAdmissionWebhook', 'w.x'),
            webhook('ValidatingAdmissionWebhook', 'w.x'),
          ],
        },
      }),
      "duplicate webhook 'w.x' of type 'MutatingAdmissionWebhook'",
    ],
    [
      'webhook name not DNS-1123 (a trailing "-" is refused)',
      testBundle({ spec: { webhookdefinitions: [webhook('ValidatingAdmissionWebhook', 'v.x-')] } }),
      `webhook of type 'ValidatingAdmissionWebhook' has invalid name 'v.x-': ${DNS_MSG}`,
    ],
    [
      'two conversion webhooks for one CRD',
      testBundle({
        spec: {
          customresourcedefinitions: { owned: [{ name: 'xs.example.com' }] },
          webhookdefinitions: [
            webhook('ConversionWebhook', 'c2.x', { conversionCRDs: ['xs.example.com'] }),
            webhook('ConversionWebhook', 'c1.x', { conversionCRDs: ['xs.example.com'] }),
          ],
        },
        crds: [crd('xs', 'example.com')],
      }),
      "conversion webhooks [c1.x,c2.x] reference same custom resource definition 'xs.example.com'",
    ],
    [
      'conversion webhook for a CRD the bundle does not own',
      testBundle({ spec: { webhookdefinitions: [webhook('ConversionWebhook', 'c.x', { conversionCRDs: ['zs.example.com'] })] } }),
      "conversion webhook 'c.x' references custom resource definition 'zs.example.com' not owned bundle",
    ],
    [
      'forbidden admission rules',
      testBundle({
        spec: {
          webhookdefinitions: [
            webhook('ValidatingAdmissionWebhook', 'v.x', {
              rules: [
                {
                  apiGroups: ['*', 'olm.operatorframework.io', 'admissionregistration.k8s.io'],
                  resources: ['ValidatingWebhookConfigurations', 'pods'],
                },
              ],
            }),
          ],
        },
      }),
      [
        'webhook "v.x" contains forbidden rule: admission webhook rules cannot reference API group "*"',
        'webhook "v.x" contains forbidden rule: admission webhook rules cannot reference API group "olm.operatorframework.io"',
        'webhook "v.x" contains forbidden rule: admission webhook rules cannot reference resource "ValidatingWebhookConfigurations" for API group "admissionregistration.k8s.io"',
      ].join('\n'),
    ],
    [
      'unsupported other kinds',
      testBundle({
        others: [
          { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'extra' } },
          { apiVersion: 'operators.coreos.com/v2', kind: 'OperatorCondition', metadata: { name: 'c' } },
        ],
      }),
      'unsupported resource "extra" with kind "Deployment"\nunsupported resource "c" with kind "OperatorCondition"',
    ],
  ])('%s', (_name, bundle, message) => {
    expect(failure(renderBundle(bundle, { installNamespace: NS }))).toEqual({ terminal: false, message });
  });

  it('joins the problems of all validators with "\\n" in validator order', () => {
    const bundle = testBundle({
      packageName: '',
      spec: { customresourcedefinitions: { owned: [{ name: 'ys.example.com' }] } },
      others: [{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } }],
    });
    expect(failure(renderBundle(bundle, { installNamespace: NS })).message).toBe(
      [
        "cluster service definition references owned custom resource definition 'ys.example.com' not found in bundle",
        'package name is empty',
        'unsupported resource "p" with kind "Pod"',
      ].join('\n'),
    );
  });
});

describe('generator refusals (2.5)', () => {
  it('refuses conversion for a CRD that preserves unknown fields', () => {
    const bundle = testBundle({
      spec: {
        customresourcedefinitions: { owned: [{ name: 'xs.example.com' }] },
        webhookdefinitions: [webhook('ConversionWebhook', 'c.x', { conversionCRDs: ['xs.example.com'] })],
      },
      crds: [crd('xs', 'example.com', { preserveUnknownFields: true })],
    });
    expect(failure(render(bundle, { installNamespace: NS, certProvider: 'cert-manager' }))).toEqual({
      terminal: false,
      message:
        "custom resource definition 'xs.example.com' must have .spec.preserveUnknownFields set to false to let API Server call webhook to do the conversion",
    });
  });

  // Both are unreachable through render() (the validators catch them first) but are kept
  // as upstream's last line of defence.
  it('refuses a CRD named by two conversion webhook definitions', () => {
    const bundle = testBundle({
      spec: {
        webhookdefinitions: [
          webhook('ConversionWebhook', 'c1.x', { conversionCRDs: ['xs.example.com'] }),
          webhook('ConversionWebhook', 'c2.x', { conversionCRDs: ['xs.example.com'] }),
        ],
      },
      crds: [crd('xs', 'example.com')],
    });
    expect(generateCrds(bundle, NS, undefined)).toEqual({
      ok: false,
      error: "custom resource definition 'xs.example.com' is referenced by multiple conversion webhook definitions",
    });
  });

  it('refuses unsupported kinds in the passthrough generator', () => {
    const bundle = testBundle({ others: [{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } }] });
    expect(generateOthers(bundle, NS)).toEqual({ ok: false, error: 'bundle contains unsupported resource: Name: p, Kind: Pod' });
  });
});
