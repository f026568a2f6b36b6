import { describe, expect, it } from 'vitest';
import { parseUpOptions } from './up-options.ts';

describe('olmv1 up flags', () => {
  it('runs locally with the registry on 5001 by default', () => {
    expect(parseUpOptions([])).toEqual({ mode: 'local', registryPort: 5001, node: false, certManager: false });
    expect(parseUpOptions(['--registry-port', '5555'])).toEqual({ mode: 'local', registryPort: 5555, node: false, certManager: false });
  });

  it('adds a real node with --node', () => {
    expect(parseUpOptions(['--node'])).toEqual({ mode: 'local', registryPort: 5001, node: true, certManager: false });
    expect(parseUpOptions(['--node', '--registry-port', '5555'])).toEqual({ mode: 'local', registryPort: 5555, node: true, certManager: false });
  });

  it('adds cert-manager on the node with --cert-manager, which needs --node', () => {
    expect(parseUpOptions(['--node', '--cert-manager'])).toEqual({ mode: 'local', registryPort: 5001, node: true, certManager: true });
    expect(() => parseUpOptions(['--cert-manager'])).toThrow('--cert-manager runs cert-manager on the local node; it needs --node');
  });

  it('runs against an existing cluster with --kubeconfig, optionally pushing the example to --registry', () => {
    expect(parseUpOptions(['--kubeconfig', 'kc'])).toEqual({ mode: 'cluster', kubeconfig: 'kc', registry: undefined });
    expect(parseUpOptions(['--kubeconfig', '/k', '--registry', 'reg.example:5000'])).toEqual({
      mode: 'cluster',
      kubeconfig: '/k',
      registry: 'reg.example:5000',
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
});
