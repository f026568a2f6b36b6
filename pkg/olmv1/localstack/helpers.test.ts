import { describe, expect, it } from 'vitest';
import { defaultCacheRoot, describeVersions, type EnvtestBinaries } from './binaries.ts';
import { subject } from './certs.ts';
import { tailLines } from './exec.ts';
import { isAddressInUse } from './ports.ts';
import { describeExit } from './process.ts';

describe('defaultCacheRoot', () => {
  it('uses XDG_CACHE_HOME when set, else $HOME/.cache', () => {
    expect(defaultCacheRoot({ XDG_CACHE_HOME: '/xdg', HOME: '/home/u' })).toBe('/xdg/olmv1/envtest');
    expect(defaultCacheRoot({ XDG_CACHE_HOME: '', HOME: '/home/u' })).toBe('/home/u/.cache/olmv1/envtest');
    expect(defaultCacheRoot({ HOME: '/home/u' })).toBe('/home/u/.cache/olmv1/envtest');
  });
});

describe('describeVersions', () => {
  it('names every binary with its version', () => {
    const versions = { kubeApiserver: 'v1.36.3', etcd: 'v3.6.8', kubectl: 'v1.36.3', kubeControllerManager: 'v1.36.3', registry: 'v3.1.2' };
    const line = describeVersions({ versions } as EnvtestBinaries);
    expect(line).toBe('envtest: kube-apiserver v1.36.3, etcd v3.6.8, kubectl v1.36.3, kube-controller-manager v1.36.3, registry v3.1.2');
  });
});

describe('subject', () => {
  it('builds an openssl subject with groups as O= entries', () => {
    expect(subject('envtest-admin', ['system:masters'])).toBe('/CN=envtest-admin/O=system:masters');
  });

  it('rejects characters openssl would interpret', () => {
    expect(() => subject('a/b', [])).toThrow('may only contain');
    expect(() => subject('ok', ['x=y'])).toThrow('"x=y"');
  });
});

describe('log helpers', () => {
  it('tailLines keeps the last non-empty lines', () => {
    expect(tailLines('a\n\nb\nc\n\n', 2)).toBe('b\nc');
  });

  it('recognises address-in-use failures of Go servers', () => {
    expect(isAddressInUse('listen tcp 127.0.0.1:6443: bind: address already in use')).toBe(true);
    expect(isAddressInUse('permission denied')).toBe(false);
  });

  it('describes exits by status or signal', () => {
    expect(describeExit({ code: 1, signal: null })).toBe('exited with status 1');
    expect(describeExit({ code: null, signal: 'SIGKILL' })).toBe('was killed by SIGKILL');
  });
});
