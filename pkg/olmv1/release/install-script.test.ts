import { describe, expect, it } from 'vitest';
import { renderInstallScript } from './install-script.ts';

const sha = 'c'.repeat(64);

describe('renderInstallScript', () => {
  const script = renderInstallScript({ version: 'v1.2.3', manifestName: 'olmv1.yaml', manifestSha256: sha });

  it('checks the manifest SHA-256 and cert-manager before it applies anything', () => {
    const check = script.indexOf(`manifest_sha256='${sha}'`);
    const certManager = script.indexOf('crd certificates.cert-manager.io');
    const apply = script.indexOf('kubectl apply --server-side --force-conflicts -f "${manifest}"');
    expect(check).toBeGreaterThan(0);
    expect(certManager).toBeGreaterThan(check);
    expect(apply).toBeGreaterThan(certManager);
  });

  it('waits for the CRDs and both rollouts in olmv1-system, and adds a catalog only when asked', () => {
    expect(script).toContain("namespace='olmv1-system'");
    expect(script).toContain('deployment/catalogd-controller-manager');
    expect(script).toContain('deployment/operator-controller-controller-manager');
    expect(script).toContain('crd/clusterextensions.olm.operatorframework.io');
    expect(script).toMatch(/if \[\[ -n "\$\{catalog_image\}" \]\]; then[\s\S]*kind: ClusterCatalog[\s\S]*condition=Serving/);
    expect(script.startsWith('#!/usr/bin/env bash\n')).toBe(true);
    expect(script).toContain('set -euo pipefail');
  });

  it('refuses values that would leave their shell quotes', () => {
    expect(() => renderInstallScript({ version: "v1'; rm -rf /", manifestName: 'olmv1.yaml', manifestSha256: sha })).toThrow(/version/);
    expect(() => renderInstallScript({ version: 'v1.2.3', manifestName: 'olmv1.yaml', manifestSha256: 'nope' })).toThrow(/SHA-256/);
  });
});
