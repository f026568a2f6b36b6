import { describe, expect, it } from 'vitest';
import { HELP as CATALOGD_HELP, parseCatalogdOptions } from '../../cmd/catalogd/options.ts';
import { HELP as CONTROLLER_HELP, parseOperatorControllerOptions } from '../../cmd/operator-controller/options.ts';
import { nodeTlsCapabilities, servingOptions } from '../../cmd/shared/serving.ts';

const ENV = { KUBECONFIG: '/home/u/.kube/config' };
const CERT = ['--tls-cert=/var/certs/tls.crt', '--tls-key=/var/certs/tls.key'];

function catalogd(argv: string[]) {
  const o = parseCatalogdOptions(argv, ENV);
  if (o === 'help') throw new Error('unexpected help');
  return o;
}

function controller(argv: string[]) {
  const o = parseOperatorControllerOptions(argv, ENV);
  if (o === 'help') throw new Error('unexpected help');
  return o;
}

describe('serving flags', () => {
  it('serve no metrics without a certificate, and the intermediate profile, as upstream', () => {
    for (const o of [catalogd([]), controller([])]) {
      expect(o).toMatchObject({ tls: undefined, metrics: undefined, insecureMetrics: false, tlsProfile: { name: 'intermediate' } });
      expect(o.tlsOptions.minVersion).toBe('TLSv1.2');
    }
  });

  it("serve HTTPS metrics with a certificate, on upstream's default addresses (catalogd :7443, operator-controller :8443)", () => {
    const tls = { certPath: '/var/certs/tls.crt', keyPath: '/var/certs/tls.key' };
    expect(catalogd(CERT)).toMatchObject({ tls, metrics: { host: '0.0.0.0', port: 7443 } });
    expect(controller(CERT)).toMatchObject({ tls, metrics: { host: '0.0.0.0', port: 8443 } });
    expect(controller([...CERT, '--metrics-bind-address=127.0.0.1:9443']).metrics).toEqual({ host: '127.0.0.1', port: 9443 });
    expect(controller([...CERT, '--metrics-bind-address=0']).metrics).toBeUndefined();
  });

  it('refuse --metrics-bind-address without a certificate, and half a pair, with upstream texts', () => {
    expect(() => controller(['--metrics-bind-address=:8443'])).toThrow('metrics-bind-address requires tls-cert and tls-key flags to be set');
    expect(() => catalogd(['--metrics-bind-address=:7443'])).toThrow('metrics-bind-address requires tls-cert and tls-key flags to be set');
    expect(() => controller(['--tls-cert=/c'])).toThrow('--tls-cert and --tls-key must be given together');
  });

  it('take --insecure-metrics alone or with a value', () => {
    expect(controller(['--insecure-metrics']).insecureMetrics).toBe(true);
    expect(catalogd(['--insecure-metrics=false']).insecureMetrics).toBe(false);
    expect(() => catalogd(['--insecure-metrics=yes'])).toThrow('invalid --insecure-metrics value "yes" (want true or false)');
  });

  it('turn the profile flags into Node options, refusing what is unknown or unsupported', () => {
    expect(catalogd(['--tls-profile=modern']).tlsOptions).toMatchObject({ minVersion: 'TLSv1.3' });
    expect(
      controller(['--tls-profile=custom', '--tls-custom-version=TLSv1.2', '--tls-custom-ciphers=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256']).tlsOptions,
    ).toMatchObject({ minVersion: 'TLSv1.2', ciphers: expect.stringMatching(/:ECDHE-ECDSA-AES128-GCM-SHA256$/) });
    expect(() => controller(['--tls-profile=strong'])).toThrow('invalid argument "strong" for "--tls-profile" flag: unknown TLS profile: "strong"');
    expect(() => catalogd(['--tls-profile=custom', '--tls-custom-ciphers=TLS_RSA_WITH_RC4_128_SHA'])).toThrow(
      '--tls-profile=custom: cipher "TLS_RSA_WITH_RC4_128_SHA" (OpenSSL RC4-SHA) is not supported',
    );
  });

  it('finds what this Node supports: the Mozilla profiles lose nothing but 3DES', () => {
    const caps = nodeTlsCapabilities();
    expect(caps.cipher('ECDHE-RSA-AES128-GCM-SHA256')).toBe(true);
    expect(caps.cipher('TLS_AES_128_GCM_SHA256')).toBe(true);
    expect(caps.cipher('RC4-SHA')).toBe(false);
    expect(caps.curve('X25519')).toBe(true);
    expect(caps.curve('P-999')).toBe(false);
    expect(servingOptions({ 'tls-profile': 'old' }, ':1').tlsOptions.ciphers).not.toContain('DES-CBC3');
  });

  it('are listed in both --help texts', () => {
    for (const help of [CATALOGD_HELP, CONTROLLER_HELP]) {
      for (const flag of [
        '--metrics-bind-address',
        '--tls-profile',
        '--tls-custom-ciphers',
        '--tls-custom-curves',
        '--tls-custom-version',
        '--insecure-metrics',
      ]) {
        expect(help).toContain(flag);
      }
    }
    expect(CATALOGD_HELP).toContain('(default :7443 with them');
    expect(CONTROLLER_HELP).toContain('(default :8443 with them');
  });
});
