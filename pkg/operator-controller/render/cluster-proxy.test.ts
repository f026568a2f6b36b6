import { describe, expect, it } from 'vitest';
import { parseBundle, type JsonObject, type KubeObject, type RegistryV1Bundle } from '../bundle/index.ts';
import { render, renderedClusterProxy, type ClusterProxy, type RenderOptions } from './index.ts';

// Two Deployments; the first has an init container and its own HTTP_PROXY and another variable.
const CSV = `apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: proxied.v1.0.0
spec:
  installModes:
    - {type: AllNamespaces, supported: true}
  install:
    strategy: deployment
    spec:
      deployments:
        - name: manager
          spec:
            selector: {matchLabels: {app: manager}}
            template:
              spec:
                initContainers:
                  - {name: setup, image: example.com/setup:v1}
                containers:
                  - name: manager
                    image: example.com/manager:v1
                    env:
                      - {name: HTTP_PROXY, value: http://own:1}
                      - {name: LOG, value: debug}
                  - {name: sidecar, image: example.com/sidecar:v1}
        - name: webhook
          spec:
            selector: {matchLabels: {app: webhook}}
            template:
              spec:
                containers:
                  - {name: webhook, image: example.com/webhook:v1}
`;
const ANNOTATIONS = `annotations:
  operators.operatorframework.io.bundle.mediatype.v1: registry+v1
  operators.operatorframework.io.bundle.package.v1: proxied
`;

function bundle(): RegistryV1Bundle {
  const enc = new TextEncoder();
  const parsed = parseBundle(
    new Map([
      ['manifests/csv.yaml', enc.encode(CSV)],
      ['metadata/annotations.yaml', enc.encode(ANNOTATIONS)],
    ]),
  );
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

const PROXY: ClusterProxy = { httpProxy: 'http://proxy:3128', httpsProxy: 'http://proxy:3129', noProxy: '.cluster.local,10.0.0.0/8' };

/** The pod specs of the rendered Deployments, by name. */
function podSpecs(options: Partial<RenderOptions>): Map<string, JsonObject> {
  const result = render(bundle(), { installNamespace: 'ops', ...options });
  if (!result.ok) throw new Error(result.error.message);
  const out = new Map<string, JsonObject>();
  for (const o of result.value.filter((x: KubeObject) => x.kind === 'Deployment')) {
    const template = (o['spec'] as JsonObject)['template'] as JsonObject;
    out.set(o.metadata.name ?? '', template['spec'] as JsonObject);
  }
  return out;
}

/** Each container's env by "deployment/container"; `initContainers` instead when `init`. */
function envs(options: Partial<RenderOptions>, init = false): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of podSpecs(options)) {
    for (const c of (spec[init ? 'initContainers' : 'containers'] ?? []) as JsonObject[]) out[`${name}/${String(c['name'])}`] = c['env'];
  }
  return out;
}

const ALL_THREE = [
  { name: 'HTTP_PROXY', value: 'http://proxy:3128' },
  { name: 'HTTPS_PROXY', value: 'http://proxy:3129' },
  { name: 'NO_PROXY', value: '.cluster.local,10.0.0.0/8' },
];

describe('the cluster-wide proxy in rendered Deployments', () => {
  it('is set in every container of every Deployment, replacing a container variable of the same name in place', () => {
    expect(envs({ clusterProxy: PROXY })).toEqual({
      'manager/manager': [{ name: 'HTTP_PROXY', value: 'http://proxy:3128' }, { name: 'LOG', value: 'debug' }, ...ALL_THREE.slice(1)],
      'manager/sidecar': ALL_THREE,
      'webhook/webhook': ALL_THREE,
    });
  });

  it('leaves init containers as they are (OLM classic sets containers only)', () => {
    expect(envs({ clusterProxy: PROXY }, true)).toEqual({ 'manager/setup': undefined });
  });

  it('sets only the variables with a value', () => {
    expect(envs({ clusterProxy: { httpProxy: '', httpsProxy: 'http://proxy:3129', noProxy: '' } })['webhook/webhook']).toEqual([
      { name: 'HTTPS_PROXY', value: 'http://proxy:3129' },
    ]);
  });

  it('changes nothing when absent or all empty', () => {
    const plain = podSpecs({});
    expect(podSpecs({ clusterProxy: { httpProxy: '', httpsProxy: '', noProxy: '' } })).toEqual(plain);
    expect(envs({})['webhook/webhook']).toBeUndefined();
  });

  it('comes after the deploymentConfig variables that are not proxy variables', () => {
    const config = { deploymentConfig: { env: [{ name: 'EXTRA', value: '1' }] } };
    expect(envs({ clusterProxy: PROXY, config })['webhook/webhook']).toEqual([{ name: 'EXTRA', value: '1' }, ...ALL_THREE]);
  });

  it('is not set at all when deploymentConfig sets any proxy variable: its values stand alone', () => {
    const config = { deploymentConfig: { env: [{ name: 'HTTPS_PROXY', value: 'http://mine:8080' }] } };
    const got = envs({ clusterProxy: PROXY, config });
    expect(got['webhook/webhook']).toEqual([{ name: 'HTTPS_PROXY', value: 'http://mine:8080' }]);
    // The container's own HTTP_PROXY stays: the operator's own default, as without a cluster proxy.
    expect(got['manager/manager']).toEqual([
      { name: 'HTTP_PROXY', value: 'http://own:1' },
      { name: 'LOG', value: 'debug' },
      { name: 'HTTPS_PROXY', value: 'http://mine:8080' },
    ]);
  });

  it('is switched off for one operator by an empty deploymentConfig value', () => {
    const config = {
      deploymentConfig: {
        env: [
          { name: 'NO_PROXY', value: '' },
          { name: 'HTTP_PROXY', value: '' },
        ],
      },
    };
    expect(envs({ clusterProxy: PROXY, config })).toEqual({
      'manager/manager': [
        { name: 'HTTP_PROXY', value: '' },
        { name: 'LOG', value: 'debug' },
        { name: 'NO_PROXY', value: '' },
      ],
      'manager/sidecar': [
        { name: 'NO_PROXY', value: '' },
        { name: 'HTTP_PROXY', value: '' },
      ],
      'webhook/webhook': [
        { name: 'NO_PROXY', value: '' },
        { name: 'HTTP_PROXY', value: '' },
      ],
    });
  });

  it('applies when the DeploymentConfig feature gate is off (no deploymentConfig to override it)', () => {
    expect(envs({ clusterProxy: PROXY, deploymentConfigSupport: false })['webhook/webhook']).toEqual(ALL_THREE);
  });

  it('leaves the bundle untouched (a second rendering without it has no proxy)', () => {
    const b = bundle();
    const first = render(b, { installNamespace: 'ops', clusterProxy: PROXY });
    const second = render(b, { installNamespace: 'ops' });
    expect(first.ok && second.ok).toBe(true);
    expect(JSON.stringify(second.ok ? second.value : [])).not.toContain('proxy:3128');
  });
});

describe('renderedClusterProxy', () => {
  it('gives back the proxy a rendering was made with, from what every container of every Deployment has alike', () => {
    const rendered = render(bundle(), { installNamespace: 'ops', clusterProxy: PROXY });
    if (!rendered.ok) throw new Error(rendered.error.message);
    expect(renderedClusterProxy(rendered.value)).toEqual(PROXY);
    const partial = { httpProxy: '', httpsProxy: 'http://proxy:3129', noProxy: '' };
    const second = render(bundle(), { installNamespace: 'ops', clusterProxy: partial });
    expect(second.ok && renderedClusterProxy(second.value)).toEqual(partial);
  });

  it("takes a variable only some containers have for the bundle's own, and nothing from a rendering without Deployments", () => {
    // Without a cluster proxy, only the manager container has HTTP_PROXY (the bundle's own).
    const plain = render(bundle(), { installNamespace: 'ops' });
    expect(plain.ok && renderedClusterProxy(plain.value)).toEqual({ httpProxy: '', httpsProxy: '', noProxy: '' });
    expect(renderedClusterProxy([])).toEqual({ httpProxy: '', httpsProxy: '', noProxy: '' });
  });
});
