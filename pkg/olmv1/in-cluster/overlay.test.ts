import { describe, expect, it } from 'vitest';
import { renderOverlay } from './overlay.ts';

const digest = `sha256:${'a'.repeat(64)}`;
const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const caBundlePatch = {
  target: { kind: 'MutatingWebhookConfiguration', name: 'catalogd-mutating-webhook-configuration' },
  patch: JSON.stringify([{ op: 'add', path: '/webhooks/0/clientConfig/caBundle', value: Buffer.from(CA).toString('base64') }]),
};

describe('renderOverlay', () => {
  it('takes config/ as the only resource, sets the olmv1 image by digest and the webhook caBundle', () => {
    const k = JSON.parse(
      renderOverlay({ base: '../config', imageRef: `10.244.3.1:5000/olmv1/olmv1@${digest}`, insecureRegistries: [], caPem: CA }),
    ) as Record<string, unknown>;
    expect(k).toEqual({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      resources: ['../config'],
      images: [{ name: 'olmv1', newName: '10.244.3.1:5000/olmv1/olmv1', digest }],
      patches: [caBundlePatch],
    });
  });

  it('adds one --insecure-registry argument per registry to both Deployments', () => {
    const k = JSON.parse(renderOverlay({ base: '../config', imageRef: `r:1/x@${digest}`, insecureRegistries: ['r:1'], caPem: CA })) as {
      patches: Array<{ target: { kind: string; name: string }; patch: string }>;
    };
    expect(k.patches[0]).toEqual(caBundlePatch);
    const deployments = k.patches.slice(1);
    expect(deployments.map((p) => p.target)).toEqual([
      { kind: 'Deployment', name: 'catalogd-controller-manager' },
      { kind: 'Deployment', name: 'operator-controller-controller-manager' },
    ]);
    for (const p of deployments)
      expect(JSON.parse(p.patch)).toEqual([{ op: 'add', path: '/spec/template/spec/containers/0/args/-', value: '--insecure-registry=r:1' }]);
  });

  it("appends a Deployment's own args (its --feature-gates) after the registries', in the same patch, and adds resources beside config/", () => {
    const k = JSON.parse(
      renderOverlay({
        base: '../config',
        imageRef: `r:1/x@${digest}`,
        insecureRegistries: ['r:1'],
        caPem: CA,
        resources: ['../config/crd/experimental'],
        deploymentArgs: { 'operator-controller-controller-manager': ['--feature-gates=BoxcutterRuntime=true'] },
      }),
    ) as { resources: string[]; patches: Array<{ target: { name: string }; patch: string }> };
    expect(k.resources).toEqual(['../config', '../config/crd/experimental']);
    const values = (name: string) =>
      (JSON.parse(k.patches.find((p) => p.target.name === name)?.patch ?? '[]') as Array<{ value: string }>).map((a) => a.value);
    expect(values('catalogd-controller-manager')).toEqual(['--insecure-registry=r:1']);
    expect(values('operator-controller-controller-manager')).toEqual(['--insecure-registry=r:1', '--feature-gates=BoxcutterRuntime=true']);
    expect(k.patches.filter((p) => p.target.name === 'operator-controller-controller-manager')).toHaveLength(1);
  });

  it('with config/cert-manager adds the component and leaves the caBundle to its CA injector', () => {
    const k = JSON.parse(
      renderOverlay({ base: '../config', imageRef: `r:1/x@${digest}`, insecureRegistries: [], components: ['../config/cert-manager'] }),
    ) as Record<string, unknown>;
    expect(k['components']).toEqual(['../config/cert-manager']);
    expect(k['patches']).toEqual([]);
  });

  it("makes the console's Service (config/console) a NodePort when asked", () => {
    const k = JSON.parse(
      renderOverlay({
        base: '../config',
        imageRef: `r:1/x@${digest}`,
        insecureRegistries: [],
        components: ['../config/console'],
        consoleNodePort: true,
      }),
    ) as Record<string, unknown>;
    expect(k['patches']).toEqual([
      { target: { kind: 'Service', name: 'olmv1-console' }, patch: JSON.stringify([{ op: 'add', path: '/spec/type', value: 'NodePort' }]) },
    ]);
  });

  it("gives the console's Deployment the plain-HTTP registries, where it reads bundle images for its install form", () => {
    const k = JSON.parse(
      renderOverlay({ base: '../config', imageRef: `r:1/x@${digest}`, insecureRegistries: ['10.0.0.1:5000'], components: ['../config/console'] }),
    ) as { patches: Array<{ target: { name: string }; patch: string }> };
    expect(k.patches.filter((p) => p.target.name === 'olmv1-console').map((p) => JSON.parse(p.patch) as unknown)).toEqual([
      [{ op: 'add', path: '/spec/template/spec/containers/0/env/-', value: { name: 'OLMV1_INSECURE_REGISTRIES', value: '10.0.0.1:5000' } }],
    ]);
  });

  it.each(['r:1/x:latest', 'r:1/x@sha256:short', 'r:1/x'])('refuses %s: not a digest reference', (imageRef) => {
    expect(() => renderOverlay({ base: '../config', imageRef, insecureRegistries: [], caPem: CA })).toThrow(/not a digest reference/);
  });
});
