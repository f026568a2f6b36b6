import { describe, expect, it } from 'vitest';
import { CONTROLLER_MANAGER_CONTROLLERS, CONTROLLER_MANAGER_USER, controllerManagerArgs } from './controller-manager.ts';

const OPTIONS = {
  kubeconfigPath: '/d/kube-controller-manager.kubeconfig',
  securePort: 10257,
  tlsCertPath: '/d/pki/kcm.crt',
  tlsKeyPath: '/d/pki/kcm.key',
  rootCaPath: '/d/pki/ca.crt',
  serviceAccountPrivateKeyPath: '/d/pki/service-account.key',
};

function flags(args: readonly string[]): Map<string, string> {
  return new Map(args.map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]));
}

describe('controllerManagerArgs', () => {
  it('runs an explicit list of controllers that need no kubelet and no cloud', () => {
    const f = flags(controllerManagerArgs(OPTIONS));
    const controllers = f.get('--controllers')?.split(',');
    expect(controllers).toEqual([...CONTROLLER_MANAGER_CONTROLLERS]);
    for (const needed of [
      'namespace-controller',
      'garbage-collector-controller',
      'deployment-controller',
      'replicaset-controller',
      'serviceaccount-controller',
      'serviceaccount-token-controller',
      'validatingadmissionpolicy-status-controller',
    ]) {
      expect(controllers).toContain(needed);
    }
    expect(controllers).not.toContain('*');
    for (const c of controllers ?? [])
      expect(c).not.toMatch(/^(node|cloud|service-lb|persistentvolume-(binder|attach|expander)|daemonset|job|cronjob)/);
  });

  it('authenticates with its kubeconfig, signs tokens with the API server key and serves on loopback only', () => {
    const f = flags(controllerManagerArgs(OPTIONS));
    expect(f.get('--kubeconfig')).toBe(OPTIONS.kubeconfigPath);
    expect(f.get('--authentication-kubeconfig')).toBe(OPTIONS.kubeconfigPath);
    expect(f.get('--authorization-kubeconfig')).toBe(OPTIONS.kubeconfigPath);
    expect(f.get('--authentication-skip-lookup')).toBe('true');
    expect(f.get('--use-service-account-credentials')).toBe('true');
    expect(f.get('--root-ca-file')).toBe(OPTIONS.rootCaPath);
    expect(f.get('--service-account-private-key-file')).toBe(OPTIONS.serviceAccountPrivateKeyPath);
    expect(f.get('--leader-elect')).toBe('false');
    expect(f.get('--bind-address')).toBe('127.0.0.1');
    expect(f.get('--secure-port')).toBe('10257');
    expect(f.get('--tls-cert-file')).toBe(OPTIONS.tlsCertPath);
    expect(CONTROLLER_MANAGER_USER).toBe('system:kube-controller-manager');
  });
});
