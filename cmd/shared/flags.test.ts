import { describe, expect, it } from 'vitest';
import { clusterLocation, parseBool, parseByteSize, parseDuration, parseListenAddress, parseSecretRef } from './flags.ts';
import { decodeLimitOptions } from './limits.ts';

describe('parseDuration', () => {
  it.each([
    ['12h', 43_200_000],
    ['1h30m', 5_400_000],
    ['90s', 90_000],
    ['250ms', 250],
    ['1.5s', 1500],
  ])('%s', (v, ms) => expect(parseDuration(v)).toBe(ms));
  it.each(['', '12', 'h', '5d', '1h x'])('rejects %j', (v) => expect(() => parseDuration(v)).toThrow(/invalid duration/));
});

describe('parseByteSize', () => {
  it.each([
    ['1048576', 1048576],
    ['512Mi', 512 * 2 ** 20],
    ['2Gi', 2 * 2 ** 30],
    ['64Ki', 65536],
    ['2G', 2e9],
    ['16M', 16e6],
    ['3k', 3000],
  ])('%s', (v, n) => expect(parseByteSize('--x', v)).toBe(n));
  it.each(['', '0', '-1', '1.5Mi', '12ki', '1MiB', '10 Mi', '99999999999Ti'])('rejects %j', (v) =>
    expect(() => parseByteSize('--x', v)).toThrow(`invalid --x ${JSON.stringify(v)} (want a positive size in bytes`),
  );
});

describe('decodeLimitOptions', () => {
  it('uses the defaults for absent flags and parses the given ones', () => {
    expect(decodeLimitOptions({})).toEqual({ maxCatalogBytes: 256 << 20, maxDocumentBytes: 16 << 20, maxStringBytes: 8 << 20 });
    expect(decodeLimitOptions({ 'max-catalog-bytes': '1Gi', 'max-string-bytes': '1000' })).toEqual({
      maxCatalogBytes: 2 ** 30,
      maxDocumentBytes: 16 << 20,
      maxStringBytes: 1000,
    });
    expect(() => decodeLimitOptions({ 'max-document-bytes': 'lots' })).toThrow('invalid --max-document-bytes "lots"');
  });
});

describe('parseListenAddress', () => {
  it('parses host, empty host and IPv6 forms', () => {
    expect(parseListenAddress('127.0.0.1:8443')).toEqual({ host: '127.0.0.1', port: 8443 });
    expect(parseListenAddress(':8081')).toEqual({ host: '0.0.0.0', port: 8081 });
    expect(parseListenAddress('[::1]:0')).toEqual({ host: '::1', port: 0 });
  });
  it('rejects malformed addresses', () => {
    expect(() => parseListenAddress('8080')).toThrow(/invalid address/);
    expect(() => parseListenAddress('host:99999')).toThrow(/invalid address/);
  });
});

describe('parseBool', () => {
  it.each([
    ['true', true],
    ['', true],
    ['false', false],
  ])('%j', (v, want) => expect(parseBool('--leader-elect', v)).toBe(want));
  it.each(['yes', 'TRUE', '1', 'f'])('rejects %j naming the flag', (v) =>
    expect(() => parseBool('--leader-elect', v)).toThrow(`invalid --leader-elect value ${JSON.stringify(v)} (want true or false)`),
  );
});

describe('parseSecretRef', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['pull', { namespace: 'sys', name: 'pull' }],
    ['other/pull', { namespace: 'other', name: 'pull' }],
  ])('%j', (v, want) => expect(parseSecretRef('--global-pull-secret', v, 'sys')).toEqual(want));
  it.each(['a/b/c', '/pull', 'other/', '/'])('rejects %j', (v) =>
    expect(() => parseSecretRef('--global-pull-secret', v, 'sys')).toThrow(
      `invalid --global-pull-secret ${JSON.stringify(v)} (want NAME or NAMESPACE/NAME)`,
    ),
  );
});

describe('clusterLocation', () => {
  it.each([
    ['the flag first', '/flag', { KUBECONFIG: '/env', KUBERNETES_SERVICE_HOST: '10.0.0.1' }, { kubeconfig: '/flag', inCluster: undefined }],
    ['then $KUBECONFIG', undefined, { KUBECONFIG: '/env', KUBERNETES_SERVICE_HOST: '10.0.0.1' }, { kubeconfig: '/env', inCluster: undefined }],
    [
      'then the in-cluster service (empty $KUBECONFIG ignored)',
      undefined,
      { KUBECONFIG: '', KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '6443' },
      { kubeconfig: undefined, inCluster: { host: '10.0.0.1', port: '6443' } },
    ],
    [
      'in-cluster port defaults to 443',
      undefined,
      { KUBERNETES_SERVICE_HOST: '10.0.0.1' },
      { kubeconfig: undefined, inCluster: { host: '10.0.0.1', port: '443' } },
    ],
  ])('%s', (_name, flag, env, want) => expect(clusterLocation(flag, env)).toEqual(want));

  it('throws when there is no cluster configuration', () => {
    expect(() => clusterLocation(undefined, { KUBECONFIG: '' })).toThrow('no cluster configuration: pass --kubeconfig or run in a cluster');
  });
});
