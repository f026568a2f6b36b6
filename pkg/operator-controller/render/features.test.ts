// The gates' rendering switches and an extension's render options, which the render step and
// `olmv1 upgrade plan` share; the certificate provider a deployed release shows.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../bundle/index.ts';
import { extensionRenderOptions, renderFeatures, renderedCertProvider, type RenderGates } from './features.ts';

const gates = (over: Partial<RenderGates> = {}): RenderGates => ({
  WebhookProviderCertManager: true,
  WebhookProviderOpenshiftServiceCA: true,
  SingleOwnNamespaceInstallSupport: true,
  DeploymentConfig: true,
  ...over,
});

describe('renderFeatures', () => {
  it.each([
    ['both providers on: cert-manager', gates(), 'cert-manager'],
    ['cert-manager alone', gates({ WebhookProviderOpenshiftServiceCA: false }), 'cert-manager'],
    ['the service CA alone', gates({ WebhookProviderCertManager: false }), 'openshift-service-ca'],
    ['neither: no provider, no webhooks', gates({ WebhookProviderCertManager: false, WebhookProviderOpenshiftServiceCA: false }), undefined],
  ])('%s', (_, g, provider) => {
    const f = renderFeatures(g);
    expect(f.certProvider).toBe(provider);
    expect(f.webhookSupport).toBe(provider !== undefined);
  });

  it('passes the install-mode and deployment-config gates through', () => {
    expect(renderFeatures(gates({ SingleOwnNamespaceInstallSupport: false, DeploymentConfig: false }))).toMatchObject({
      singleOwnNamespaceSupport: false,
      deploymentConfigSupport: false,
    });
  });
});

describe('extensionRenderOptions', () => {
  const features = renderFeatures(gates({ WebhookProviderCertManager: false, DeploymentConfig: false }));
  it('takes spec.namespace, spec.config.inline, every switch and the proxy', () => {
    const proxy = { httpProxy: 'http://p:3128', httpsProxy: '', noProxy: '' };
    expect(extensionRenderOptions({ namespace: 'ns', config: { inline: { watchNamespace: 'w' } } }, features, proxy)).toEqual({
      installNamespace: 'ns',
      config: { watchNamespace: 'w' },
      certProvider: 'openshift-service-ca',
      webhookSupport: true,
      singleOwnNamespaceSupport: true,
      deploymentConfigSupport: false,
      clusterProxy: proxy,
    });
  });
  it('without spec.config or a proxy: no config, no proxy', () => {
    const o = extensionRenderOptions({ namespace: 'ns' }, features);
    expect(o.config).toBeUndefined();
    expect('clusterProxy' in o).toBe(false);
  });
});

describe('renderedCertProvider', () => {
  const obj = (apiVersion: string, kind: string, annotations?: Record<string, string>): KubeObject => ({
    apiVersion,
    kind,
    metadata: { name: 'x', ...(annotations ? { annotations } : {}) },
  });
  it.each([
    [[obj('v1', 'ConfigMap')], undefined],
    [[obj('cert-manager.io/v1', 'Certificate')], 'cert-manager'],
    [[obj('v1', 'Service', { 'service.beta.openshift.io/serving-cert-secret-name': 's' })], 'openshift-service-ca'],
  ])('%#', (manifest, want) => {
    expect(renderedCertProvider(manifest)).toBe(want);
  });
});
