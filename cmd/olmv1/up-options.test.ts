import { describe, expect, it } from 'vitest';
import { parseUpOptions } from './up-options.ts';

const NONE = { catalogd: [], operatorController: [] };

describe('olmv1 up flags', () => {
  it('runs locally with the registry on 5001 by default', () => {
    expect(parseUpOptions([])).toEqual({
      mode: 'local',
      registryPort: 5001,
      node: false,
      inCluster: false,
      noOlm: false,
      certManager: false,
      featureGates: NONE,
    });
    expect(parseUpOptions(['--registry-port', '5555'])).toEqual({
      mode: 'local',
      registryPort: 5555,
      node: false,
      inCluster: false,
      noOlm: false,
      certManager: false,
      featureGates: NONE,
    });
  });

  it('adds a real node with --node', () => {
    expect(parseUpOptions(['--node'])).toEqual({
      mode: 'local',
      registryPort: 5001,
      node: true,
      inCluster: false,
      noOlm: false,
      certManager: false,
      featureGates: NONE,
    });
    expect(parseUpOptions(['--node', '--registry-port', '5555'])).toEqual({
      mode: 'local',
      registryPort: 5555,
      node: true,
      inCluster: false,
      noOlm: false,
      certManager: false,
      featureGates: NONE,
    });
  });

  it('starts a node without anything of OLM with --no-olm, which needs --node and no --in-cluster', () => {
    expect(parseUpOptions(['--node', '--no-olm', '--cert-manager'])).toMatchObject({
      mode: 'local',
      node: true,
      noOlm: true,
      certManager: true,
      inCluster: false,
    });
    expect(() => parseUpOptions(['--no-olm'])).toThrow('--no-olm starts a local node without OLM; it needs --node');
    expect(() => parseUpOptions(['--node', '--no-olm', '--in-cluster'])).toThrow('--no-olm runs nothing of OLM; it does not go with --in-cluster');
    expect(() => parseUpOptions(['--node', '--no-olm', '--feature-gates', 'WebhookProviderCertManager=true'])).toThrow(/--feature-gates/);
  });

  it('passes --authentication-config to the local API server only', () => {
    expect(parseUpOptions(['--node', '--in-cluster', '--authentication-config', 'authn.yaml'])).toMatchObject({
      mode: 'local',
      inCluster: true,
      authenticationConfig: 'authn.yaml',
    });
    expect(parseUpOptions(['--node'])).not.toHaveProperty('authenticationConfig');
    expect(() => parseUpOptions(['--authentication-config', ''])).toThrow('--authentication-config needs a path');
    expect(() => parseUpOptions(['--kubeconfig', 'k', '--authentication-config', 'a.yaml'])).toThrow(/does not go with --kubeconfig/);
  });

  it('adds cert-manager on the node with --cert-manager, which needs --node', () => {
    expect(parseUpOptions(['--node', '--cert-manager'])).toEqual({
      mode: 'local',
      registryPort: 5001,
      node: true,
      inCluster: false,
      noOlm: false,
      certManager: true,
      featureGates: NONE,
    });
    expect(() => parseUpOptions(['--cert-manager'])).toThrow('--cert-manager runs cert-manager on the local node; it needs --node');
  });

  it('runs against an existing cluster with --kubeconfig, optionally pushing the example to --registry', () => {
    expect(parseUpOptions(['--kubeconfig', 'kc'])).toEqual({ mode: 'cluster', kubeconfig: 'kc', registry: undefined, featureGates: NONE });
    expect(parseUpOptions(['--kubeconfig', '/k', '--registry', 'reg.example:5000'])).toEqual({
      mode: 'cluster',
      kubeconfig: '/k',
      registry: 'reg.example:5000',
      featureGates: NONE,
    });
  });

  it('returns help for --help and -h', () => {
    expect(parseUpOptions(['--help'])).toBe('help');
    expect(parseUpOptions(['-h'])).toBe('help');
  });

  it('refuses flags that do not fit the mode, bad values and arguments', () => {
    expect(() => parseUpOptions(['--registry', 'r:1'])).toThrow(/--registry is for --kubeconfig mode/);
    expect(() => parseUpOptions(['--kubeconfig', 'k', '--registry-port', '1'])).toThrow(/with --kubeconfig use --registry HOST/);
    expect(() => parseUpOptions(['--kubeconfig', 'k', '--registry', 'http://r'])).toThrow(/host\[:port\]/);
    expect(() => parseUpOptions(['--kubeconfig', ''])).toThrow(/needs a path/);
    expect(() => parseUpOptions(['--kubeconfig', 'k', '--node'])).toThrow(/does not go with --kubeconfig/);
    expect(() => parseUpOptions(['--registry-port', '0'])).toThrow(/port number/);
    expect(() => parseUpOptions(['--registry-port', 'x'])).toThrow(/port number/);
    expect(() => parseUpOptions(['extra'])).toThrow(/unexpected argument "extra"/);
    expect(() => parseUpOptions(['--nope'])).toThrow();
  });

  it('runs the components as Pods with --node --in-cluster; --in-cluster needs --node', () => {
    expect(parseUpOptions(['--node', '--in-cluster'])).toMatchObject({ mode: 'local', node: true, inCluster: true });
    expect(() => parseUpOptions(['--in-cluster'])).toThrow(
      '--in-cluster runs catalogd and operator-controller as Pods on the local node; it needs --node',
    );
    expect(() => parseUpOptions(['--kubeconfig', 'k', '--in-cluster'])).toThrow(/it needs --node/);
  });

  it('gives each --feature-gates setting to the component that knows it, in every mode', () => {
    expect(parseUpOptions(['--feature-gates', 'GraphQLCatalogQueries=true'])).toMatchObject({
      featureGates: { catalogd: ['GraphQLCatalogQueries=true'], operatorController: [] },
    });
    expect(parseUpOptions(['--node', '--in-cluster', '--feature-gates', 'BundleReleaseSupport=true,GraphQLCatalogQueries=true'])).toMatchObject({
      featureGates: { catalogd: ['GraphQLCatalogQueries=true'], operatorController: ['BundleReleaseSupport=true'] },
    });
    // Repeated, with spaces and empty entries as featuregate takes them; AllBeta to both, as both binaries know it.
    expect(
      parseUpOptions(['--kubeconfig', 'k', '--feature-gates', ' DeploymentConfig=false ,,', '--feature-gates=AllBeta=true,APIV1MetasHandler=true']),
    ).toMatchObject({
      mode: 'cluster',
      featureGates: { catalogd: ['AllBeta=true', 'APIV1MetasHandler=true'], operatorController: ['DeploymentConfig=false', 'AllBeta=true'] },
    });
  });

  it('refuses an unknown gate naming every known one, an entry without a value, and a value a component refuses', () => {
    expect(() => parseUpOptions(['--feature-gates', 'GraphQLCatalogQueries=true,NoSuchGate=true'])).toThrow(
      '--feature-gates: unknown gate "NoSuchGate"; known gates: catalogd APIV1MetasHandler, GraphQLCatalogQueries; ' +
        'operator-controller BoxcutterRuntime, BundleReleaseSupport, DeploymentConfig, SingleOwnNamespaceInstallSupport, TenantExtensions, ' +
        'WebhookProviderCertManager, WebhookProviderOpenshiftServiceCA; both AllAlpha, AllBeta',
    );
    expect(() => parseUpOptions(['--feature-gates', 'GraphQLCatalogQueries'])).toThrow(
      '--feature-gates: missing bool value for GraphQLCatalogQueries',
    );
    expect(() => parseUpOptions(['--feature-gates', 'GraphQLCatalogQueries=maybe'])).toThrow(
      /^catalogd: invalid value of GraphQLCatalogQueries=maybe/,
    );
    expect(() => parseUpOptions(['--feature-gates', 'BoxcutterRuntime=maybe'])).toThrow(
      /^operator-controller: invalid value of BoxcutterRuntime=maybe/,
    );
    // Object keys are no gates.
    expect(() => parseUpOptions(['--feature-gates', 'toString=true'])).toThrow(/unknown gate "toString"/);
  });
});

describe('olmv1 up --feature-gates BoxcutterRuntime', () => {
  it('goes to operator-controller alone, directly or through AllAlpha', () => {
    expect(parseUpOptions(['--node', '--in-cluster', '--feature-gates', 'BoxcutterRuntime=true'])).toMatchObject({
      featureGates: { catalogd: [], operatorController: ['BoxcutterRuntime=true'] },
    });
    expect(parseUpOptions(['--feature-gates', 'AllAlpha=true'])).toMatchObject({
      featureGates: { catalogd: ['AllAlpha=true'], operatorController: ['AllAlpha=true'] },
    });
    expect(parseUpOptions(['--feature-gates', 'AllAlpha=true,BoxcutterRuntime=false'])).toMatchObject({
      featureGates: { catalogd: ['AllAlpha=true'], operatorController: ['AllAlpha=true', 'BoxcutterRuntime=false'] },
    });
  });
});
