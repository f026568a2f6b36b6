import { describe, expect, it } from 'vitest';
import { UPSTREAM_CATALOGD_ARGS } from '../../test/support/upstream-deployment-args.ts';
import { HELP, parseCatalogdOptions, type CatalogdOptions } from './options.ts';

const ENV = { KUBECONFIG: '/home/u/.kube/config' };

function parse(argv: string[], env: NodeJS.ProcessEnv = ENV): CatalogdOptions {
  const o = parseCatalogdOptions(argv, env);
  if (o === 'help') throw new Error('unexpected help');
  return o;
}

describe('parseCatalogdOptions: workers and ingest timeout', () => {
  it('defaults to two workers and a ten-minute ingest timeout', () => {
    expect(parse([])).toMatchObject({ maxConcurrentReconciles: 2, ingestTimeoutMs: 600_000, gcIntervalMs: 43_200_000 });
    expect(HELP).toContain('--max-concurrent-reconciles N     ClusterCatalogs pulled and stored in parallel (default 2)');
    expect(HELP).toContain('(default 10m0s)');
  });

  it('takes both flags', () => {
    expect(parse(['--max-concurrent-reconciles=6', '--ingest-timeout', '90s'])).toMatchObject({
      maxConcurrentReconciles: 6,
      ingestTimeoutMs: 90_000,
    });
  });

  it.each(['0', '-1', '1.5', 'two', ''])('rejects --max-concurrent-reconciles %j', (v) => {
    expect(() => parse([`--max-concurrent-reconciles=${v}`])).toThrow(
      `invalid --max-concurrent-reconciles ${JSON.stringify(v)} (want a positive integer)`,
    );
  });

  it('rejects an ingest timeout that is not a positive duration', () => {
    expect(() => parse(['--ingest-timeout=10'])).toThrow('invalid --ingest-timeout: invalid duration "10" (want e.g. 90s, 30m, 12h)');
    expect(() => parse(['--ingest-timeout=0s'])).toThrow('invalid --ingest-timeout "0s" (want a duration above zero)');
  });
});

describe('parseCatalogdOptions: size limits', () => {
  it('defaults to the catalog decode limits and catalog image caps, and takes the flags', () => {
    expect(parse([])).toMatchObject({
      decodeLimits: { maxCatalogBytes: 256 << 20, maxDocumentBytes: 16 << 20, maxStringBytes: 8 << 20 },
      imageLimits: { maxDecompressedBytes: 4 * 2 ** 30, maxUnpackedBytes: 256 << 20, maxFiles: 100_000 },
    });
    expect(
      parse(['--max-catalog-bytes=1Gi', '--max-document-bytes=32Mi', '--max-image-unpacked-bytes=1Gi', '--max-image-files', '2000']),
    ).toMatchObject({
      decodeLimits: { maxCatalogBytes: 1 << 30, maxDocumentBytes: 32 << 20, maxStringBytes: 8 << 20 },
      imageLimits: { maxDecompressedBytes: 4 * 2 ** 30, maxUnpackedBytes: 1 << 30, maxFiles: 2000 },
    });
    expect(HELP).toContain('--max-image-unpacked-bytes SIZE   bytes of the files unpacked from an image (default 256Mi)');
  });

  it('rejects sizes and counts that are not positive', () => {
    expect(() => parse(['--max-image-decompressed-bytes=0'])).toThrow('invalid --max-image-decompressed-bytes "0"');
    expect(() => parse(['--max-image-files=1k'])).toThrow('invalid --max-image-files "1k" (want a positive integer)');
    expect(() => parse(['--max-string-bytes=-5'])).toThrow('invalid --max-string-bytes "-5"');
  });
});

describe('parseCatalogdOptions: outgoing traffic', () => {
  it('takes --pull-cas-dir and the proxy variables of the environment', () => {
    const o = parse(['--pull-cas-dir=/etc/olmv1/registries.d'], { KUBECONFIG: '/kc', HTTP_PROXY: 'http://p:3128', no_proxy: 'localhost,.svc' });
    expect(o).toMatchObject({
      pullCasDir: '/etc/olmv1/registries.d',
      proxy: { httpProxy: 'http://p:3128', httpsProxy: '', noProxy: 'localhost,.svc' },
    });
    expect(HELP).toContain('--pull-cas-dir DIR');
  });
});

describe('parseCatalogdOptions: leader election durations', () => {
  it("keeps client-go's durations unless a flag sets one; the others stay client-go's", () => {
    expect(parse([]).leaderElection).toBeUndefined();
    expect(parse(['--leader-elect-retry-period=3s']).leaderElection).toEqual({
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 3_000,
    });
  });

  it('rejects durations that would let two leaders overlap', () => {
    expect(() => parse(['--leader-elect-lease-duration=10s'])).toThrow('leaseDuration must be greater than renewDeadline');
  });
});

describe("parseCatalogdOptions: upstream's Deployment arguments", () => {
  const METAS = {
    flag: '--feature-gates',
    gate: 'APIV1MetasHandler',
    value: 'false',
    reason: '/api/v1/metas is always served here, from the index every catalog gets at ingest',
  };

  it('takes the standard ones (and e2e, OpenShift): APIV1MetasHandler=false has no effect; the e2e ones serve pprof', () => {
    for (const [args, notices] of [
      [UPSTREAM_CATALOGD_ARGS.standard, [METAS]],
      [UPSTREAM_CATALOGD_ARGS.standardE2e, [METAS]],
      [UPSTREAM_CATALOGD_ARGS.openshift, [METAS]],
    ] as const) {
      expect(parse([...args])).toMatchObject({
        leaderElect: true,
        metrics: { host: '0.0.0.0', port: 7443 },
        externalAddress: 'catalogd-service.olmv1-system.svc',
        tls: { certPath: '/var/certs/tls.crt', keyPath: '/var/certs/tls.key' },
        flagNotices: notices,
      });
    }
    expect(parse([...UPSTREAM_CATALOGD_ARGS.standardE2e])).toMatchObject({
      pullCasDir: '/var/ca-certs',
      tlsProfile: { name: 'custom' },
      pprof: { host: '0.0.0.0', port: 6060 },
    });
    expect(parse([...UPSTREAM_CATALOGD_ARGS.standard]).pprof).toBeUndefined();
    expect(parse([...UPSTREAM_CATALOGD_ARGS.openshift])).toMatchObject({
      logLevel: 'info',
      pullSecret: { namespace: 'openshift-config', name: 'pull-secret' },
    });
  });

  it('accepts the experimental ones: GraphQLCatalogQueries=true serves the GraphQL endpoint', () => {
    for (const args of [UPSTREAM_CATALOGD_ARGS.experimental, UPSTREAM_CATALOGD_ARGS.experimentalE2e]) {
      const o = parse([...args]);
      expect(o).toMatchObject({ graphqlQueries: true, featureGateStatus: { APIV1MetasHandler: true, GraphQLCatalogQueries: true } });
      // APIV1MetasHandler=true is what this catalogd does: nothing to report.
      expect(o.flagNotices).toEqual([]);
    }
    expect(parse(['--feature-gates=GraphQLCatalogQueries=false']).graphqlQueries).toBe(false);
    expect(() => parse(['--feature-gates=NoSuchGate=true'])).toThrow('unrecognized feature gate: NoSuchGate');
    // The start-up line shows what is in effect: metas served whatever the gate says, GraphQL off by default.
    expect(parse([...UPSTREAM_CATALOGD_ARGS.standard])).toMatchObject({
      graphqlQueries: false,
      featureGateStatus: { APIV1MetasHandler: true, GraphQLCatalogQueries: false },
    });
  });

  it('serves the name-label webhook on --webhook-server-port (default 9443) with the serving certificate, none with 0 or without one', () => {
    const tls = ['--tls-cert=/c', '--tls-key=/k'];
    expect(parse(tls)).toMatchObject({ webhook: { host: '0.0.0.0', port: 9443 }, flagNotices: [] });
    expect(parse([...tls, '--webhook-server-port=19443']).webhook).toEqual({ host: '0.0.0.0', port: 19443 });
    expect(parse([...tls, '--webhook-server-port=0']).webhook).toBeUndefined();
    expect(parse(['--webhook-server-port=9443']).webhook).toBeUndefined();
    for (const bad of ['web', '-1', '65536', ''])
      expect(() => parse([...tls, `--webhook-server-port=${bad}`])).toThrow(
        `invalid --webhook-server-port ${JSON.stringify(bad)} (want a port number)`,
      );
  });

  it("help names upstream's flags and the version command", () => {
    for (const s of ['--feature-gates', 'GraphQLCatalogQueries=false', '--webhook-server-port', '--pprof-bind-address', '--v N', 'version'])
      expect(HELP).toContain(s);
  });
});
