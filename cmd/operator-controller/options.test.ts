import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { UPSTREAM_OPERATOR_CONTROLLER_ARGS } from '../../test/support/upstream-deployment-args.ts';
import { FEATURE_GATE_DEFAULTS, HELP, parseOperatorControllerOptions, type OperatorControllerOptions } from './options.ts';

const ENV = { KUBECONFIG: '/home/u/.kube/config' };

function parse(argv: string[], env: NodeJS.ProcessEnv = ENV): OperatorControllerOptions {
  const o = parseOperatorControllerOptions(argv, env);
  if (o === 'help') throw new Error('unexpected help');
  return o;
}

describe('parseOperatorControllerOptions', () => {
  it('defaults', () => {
    expect(parse([])).toEqual({
      kubeconfig: '/home/u/.kube/config',
      inCluster: undefined,
      systemNamespace: 'olmv1-system',
      cacheDir: '/var/cache/operator-controller',
      catalogdUrl: undefined,
      catalogdCaFile: undefined,
      maxConcurrentReconciles: 8,
      healthProbe: { host: '0.0.0.0', port: 8081 },
      leaderElect: true,
      leaderElectionId: '9c4404e7.operatorframework.io',
      leaderElection: { leaseDurationMs: 137_000, renewDeadlineMs: 107_000, retryPeriodMs: 26_000 },
      identity: `${hostname()}_${process.pid}`,
      pullSecret: undefined,
      insecureRegistries: [],
      pullCaFile: undefined,
      featureGates: { ...FEATURE_GATE_DEFAULTS },
      logLevel: 'info',
      logFormat: 'json',
      imageLimits: { maxDecompressedBytes: 1 << 30, maxUnpackedBytes: 32 << 20, maxFiles: 10_000 },
      pullConnectTimeoutMs: 10_000,
      pullReadTimeoutMs: 30_000,
      tls: undefined,
      metrics: undefined,
      tlsProfile: expect.objectContaining({ name: 'intermediate' }),
      tlsOptions: expect.objectContaining({ minVersion: 'TLSv1.2' }),
      insecureMetrics: false,
      registriesConf: { system: { file: '/etc/containers/registries.conf', dir: '/etc/containers/registries.conf.d' } },
      signaturePolicy: { systemPolicy: '/etc/containers/policy.json', systemRegistriesDir: '/etc/containers/registries.d' },
      proxy: { httpProxy: '', httpsProxy: '', noProxy: '' },
      flagNotices: [],
      featureGateStatus: FEATURE_GATE_DEFAULTS,
    });
    expect(Object.keys(parse([]).featureGateStatus ?? {})).toEqual([
      'BoxcutterRuntime',
      'BundleReleaseSupport',
      'DeploymentConfig',
      'SingleOwnNamespaceInstallSupport',
      'TenantExtensions',
      'WebhookProviderCertManager',
      'WebhookProviderOpenshiftServiceCA',
    ]);
    expect(FEATURE_GATE_DEFAULTS).toEqual({
      SingleOwnNamespaceInstallSupport: true,
      DeploymentConfig: true,
      WebhookProviderCertManager: true,
      WebhookProviderOpenshiftServiceCA: true,
      BundleReleaseSupport: false,
      BoxcutterRuntime: false,
      TenantExtensions: false,
    });
  });

  it('takes the namespace, identity and cluster from the environment', () => {
    const o = parse([], { POD_NAMESPACE: 'olm', POD_NAME: 'oc-7f9', KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' });
    expect(o).toMatchObject({ systemNamespace: 'olm', identity: 'oc-7f9', kubeconfig: undefined, inCluster: { host: '10.96.0.1', port: '443' } });
  });

  it('takes an empty POD_NAME or POD_NAMESPACE for unset (a Deployment env rewritten with values only)', () => {
    expect(parse(['--kubeconfig=/kc'], { POD_NAMESPACE: '', POD_NAME: '' })).toMatchObject({
      systemNamespace: 'olmv1-system',
      identity: `${hostname()}_${process.pid}`,
    });
  });

  it('every flag', () => {
    const o = parse(
      [
        '--kubeconfig=/tmp/kc',
        '--system-namespace',
        'sys',
        '--cache-dir=/cache',
        '--catalogd-url=https://localhost:8443/ignored',
        '--catalogd-ca-file=/ca/catalogd.pem',
        '--catalogd-cas-dir=/ca/catalogd.d',
        '--max-concurrent-reconciles=12',
        '--health-probe-bind-address=127.0.0.1:9440',
        '--leader-elect=false',
        '--leader-election-id=my-lease',
        '--leader-elect-lease-duration=15s',
        '--leader-elect-renew-deadline=10s',
        '--leader-elect-retry-period=2s',
        '--global-pull-secret=pull',
        '--insecure-registry=localhost:5000',
        '--insecure-registry',
        'registry.local',
        '--pull-ca-file=/ca/registry.pem',
        '--pull-cas-dir',
        '/ca/registries.d',
        '--feature-gates=BundleReleaseSupport=true,WebhookProviderCertManager=false',
        '--log-level=debug',
        '--log-format=text',
        '--max-image-decompressed-bytes=2Gi',
        '--max-image-unpacked-bytes',
        '100Mi',
        '--max-image-files=500',
        '--pull-connect-timeout=5s',
        '--pull-read-timeout',
        '1m30s',
        '--tls-cert=/certs/tls.crt',
        '--tls-key',
        '/certs/tls.key',
        '--metrics-bind-address=127.0.0.1:9443',
        '--tls-profile=modern',
        '--insecure-metrics',
      ],
      { KUBECONFIG: '/env/kc', POD_NAMESPACE: 'olm', POD_NAME: 'me', https_proxy: 'proxy.corp:3128', NO_PROXY: '.svc,10.0.0.0/8' },
    );
    expect(o).toEqual({
      kubeconfig: '/tmp/kc',
      inCluster: undefined,
      systemNamespace: 'sys',
      cacheDir: '/cache',
      catalogdUrl: new URL('https://localhost:8443/ignored'),
      catalogdCaFile: '/ca/catalogd.pem',
      catalogdCasDir: '/ca/catalogd.d',
      maxConcurrentReconciles: 12,
      healthProbe: { host: '127.0.0.1', port: 9440 },
      leaderElect: false,
      leaderElectionId: 'my-lease',
      leaderElection: { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
      identity: 'me',
      pullSecret: { namespace: 'sys', name: 'pull' },
      insecureRegistries: ['localhost:5000', 'registry.local'],
      pullCaFile: '/ca/registry.pem',
      pullCasDir: '/ca/registries.d',
      proxy: { httpProxy: '', httpsProxy: 'proxy.corp:3128', noProxy: '.svc,10.0.0.0/8' },
      featureGates: { ...FEATURE_GATE_DEFAULTS, BundleReleaseSupport: true, WebhookProviderCertManager: false },
      logLevel: 'debug',
      logFormat: 'text',
      imageLimits: { maxDecompressedBytes: 2 * 2 ** 30, maxUnpackedBytes: 100 << 20, maxFiles: 500 },
      pullConnectTimeoutMs: 5_000,
      pullReadTimeoutMs: 90_000,
      tls: { certPath: '/certs/tls.crt', keyPath: '/certs/tls.key' },
      metrics: { host: '127.0.0.1', port: 9443 },
      tlsProfile: expect.objectContaining({ name: 'modern' }),
      tlsOptions: expect.objectContaining({ minVersion: 'TLSv1.3' }),
      insecureMetrics: true,
      registriesConf: { system: { file: '/etc/containers/registries.conf', dir: '/etc/containers/registries.conf.d' } },
      signaturePolicy: { systemPolicy: '/etc/containers/policy.json', systemRegistriesDir: '/etc/containers/registries.d' },
      flagNotices: [],
      featureGateStatus: { ...FEATURE_GATE_DEFAULTS, BundleReleaseSupport: true, WebhookProviderCertManager: false, BoxcutterRuntime: false },
    });
  });

  it.each([
    [['--leader-elect'], true],
    [['--leader-elect=true'], true],
    [['--leader-elect=false'], false],
  ])('%j', (argv, want) => expect(parse(argv).leaderElect).toBe(want));

  it("takes upstream's --cache-path for --cache-dir, and refuses the two with different values", () => {
    expect(parse(['--cache-path', '/c']).cacheDir).toBe('/c');
    expect(parse(['--cache-path', '/c', '--cache-dir', '/c']).cacheDir).toBe('/c');
    expect(() => parse(['--cache-path', '/c', '--cache-dir', '/d'])).toThrow("--cache-dir and --cache-path (upstream's name) give different values");
  });

  it('--user-revision-service-account NS/NAME (decision 0126), none by default', () => {
    expect(parse([]).userRevisionServiceAccount).toBeUndefined();
    expect(parse(['--user-revision-service-account', 'revs/writer']).userRevisionServiceAccount).toEqual({ namespace: 'revs', name: 'writer' });
    expect(() => parse(['--user-revision-service-account', 'writer'])).toThrow('invalid --user-revision-service-account:');
  });

  it('--default-install-service-account NS/NAME, refused in any other shape', () => {
    expect(parse(['--default-install-service-account', 'olmv1-system/installer']).defaultInstallServiceAccount).toEqual({
      namespace: 'olmv1-system',
      name: 'installer',
    });
    expect(() => parse(['--default-install-service-account', 'installer'])).toThrow(
      'invalid --default-install-service-account: invalid ServiceAccount "installer": expected NAMESPACE/NAME',
    );
    expect(() => parse(['--default-install-service-account', 'NS/x'])).toThrow('expected NAMESPACE/NAME');
  });

  it('--maintenance-window SCHEDULE DURATION [ZONE]: none by default, refused at start when malformed', () => {
    expect(parse([]).maintenanceWindow).toBeUndefined();
    expect(parse(['--maintenance-window', '0 2 * * SAT 4h Europe/Berlin']).maintenanceWindow).toBeDefined();
    expect(() => parse(['--maintenance-window', '0 2 * * SAT'])).toThrow(/^invalid --maintenance-window: /);
  });

  it('--global-pull-secret NS/NAME keeps its namespace', () => {
    expect(parse(['--global-pull-secret=creds/pull']).pullSecret).toEqual({ namespace: 'creds', name: 'pull' });
  });

  it.each(['0', '-1', '1.5', 'four', ''])('rejects --max-concurrent-reconciles %j', (v) => {
    expect(() => parse([`--max-concurrent-reconciles=${v}`])).toThrow(
      `invalid --max-concurrent-reconciles ${JSON.stringify(v)} (want a positive integer)`,
    );
  });

  it.each(['localhost:8443', 'ftp://catalogd.example', 'not a url', ''])('rejects --catalogd-url %j', (v) => {
    expect(() => parse([`--catalogd-url=${v}`])).toThrow(`invalid --catalogd-url ${JSON.stringify(v)} (want http(s)://HOST[:PORT])`);
  });

  it.each([
    [['--leader-elect=maybe'], 'invalid --leader-elect value "maybe" (want true or false)'],
    [['--leader-elect-retry-period=0s'], 'invalid --leader-elect-retry-period "0s" (want a duration above zero)'],
    [['--leader-elect-lease-duration=forever'], 'invalid --leader-elect-lease-duration'],
    [['--leader-elect-lease-duration=100s'], 'invalid --leader-elect-* durations: leaseDuration must be greater than renewDeadline'],
    [['--leader-elect-renew-deadline=20s'], 'invalid --leader-elect-* durations: renewDeadline must be greater than retryPeriod*1.2'],
    [['--global-pull-secret=a/b/c'], 'invalid --global-pull-secret "a/b/c" (want NAME or NAMESPACE/NAME)'],
    [['--feature-gates=NoSuchGate=true'], 'unrecognized feature gate: NoSuchGate'],
    [['--health-probe-bind-address=8081'], 'invalid address "8081"'],
    [['--pull-read-timeout=0s'], 'invalid --pull-read-timeout "0s" (want a duration above zero)'],
    [['--pull-connect-timeout=10'], 'invalid --pull-connect-timeout: invalid duration "10" (want e.g. 90s, 30m, 12h)'],
    [['--no-such-flag'], /no-such-flag/],
    [['positional'], /positional/],
  ])('rejects %j', (argv, message) => {
    expect(() => parse(argv)).toThrow(message);
  });

  it('rejects a proxy variable that is not an http(s) proxy, naming it', () => {
    expect(() => parse([], { ...ENV, HTTPS_PROXY: 'socks5://proxy:1080' })).toThrow(
      'unsupported proxy scheme "socks5" in HTTPS_PROXY: only http and https proxies are supported',
    );
  });

  it('rejects a missing cluster configuration', () => {
    expect(() => parse([], {})).toThrow('no cluster configuration');
  });

  it.each([['--help'], ['-h'], ['--help', '--max-concurrent-reconciles=0']])('%j returns help', (...argv) => {
    expect(parseOperatorControllerOptions(argv, {})).toBe('help');
  });

  it('the help text lists every flag and the gate defaults', () => {
    for (const flag of [
      '--kubeconfig',
      '--system-namespace',
      '--cache-dir',
      '--catalogd-url',
      '--catalogd-ca-file',
      '--catalogd-cas-dir',
      '--max-concurrent-reconciles',
      '--health-probe-bind-address',
      '--leader-elect',
      '--leader-election-id',
      '--global-pull-secret',
      '--insecure-registry',
      '--pull-ca-file',
      '--pull-cas-dir',
      '--pull-connect-timeout',
      '--pull-read-timeout',
      '--feature-gates',
      '--log-level',
    ]) {
      expect(HELP).toContain(flag);
    }
    expect(HELP).toContain('BundleReleaseSupport=false');
  });
});

describe("upstream's Deployment arguments", () => {
  it('takes the standard ones (and e2e), every gate honoured; the e2e ones serve pprof', () => {
    for (const [args, notices] of [
      [UPSTREAM_OPERATOR_CONTROLLER_ARGS.standard, []],
      [UPSTREAM_OPERATOR_CONTROLLER_ARGS.standardE2e, []],
    ] as const) {
      expect(parse([...args])).toMatchObject({
        healthProbe: { host: '0.0.0.0', port: 8081 },
        metrics: { host: '0.0.0.0', port: 8443 },
        leaderElect: true,
        tls: { certPath: '/var/certs/tls.crt', keyPath: '/var/certs/tls.key' },
        catalogdCasDir: '/var/ca-certs',
        pullCasDir: '/var/ca-certs',
        featureGates: {
          SingleOwnNamespaceInstallSupport: false,
          DeploymentConfig: false,
          WebhookProviderCertManager: true,
          WebhookProviderOpenshiftServiceCA: false,
          BundleReleaseSupport: false,
        },
        flagNotices: notices,
      });
    }
    expect(parse([...UPSTREAM_OPERATOR_CONTROLLER_ARGS.standardE2e]).tlsProfile.name).toBe('modern');
    expect(parse([...UPSTREAM_OPERATOR_CONTROLLER_ARGS.standardE2e]).pprof).toEqual({ host: '0.0.0.0', port: 6060 });
    expect(parse([...UPSTREAM_OPERATOR_CONTROLLER_ARGS.standard]).pprof).toBeUndefined();
    expect(parse(['--pprof-bind-address=0']).pprof).toBeUndefined();
    expect(parse(['--pprof-bind-address=']).pprof).toBeUndefined();
    expect(parse(['--pprof-bind-address=127.0.0.1:8082']).pprof).toEqual({ host: '127.0.0.1', port: 8082 });
    expect(() => parse(['--pprof-bind-address=8082'])).toThrow('invalid --pprof-bind-address: invalid address "8082" (want HOST:PORT or :PORT)');
  });

  it("takes the OpenShift ones: --v=2 is klog's info", () => {
    expect(parse([...UPSTREAM_OPERATOR_CONTROLLER_ARGS.openshift])).toMatchObject({
      logLevel: 'info',
      pullSecret: { namespace: 'openshift-config', name: 'pull-secret' },
      flagNotices: [],
    });
  });

  it('takes the experimental ones: BoxcutterRuntime=true chooses the ClusterObjectSet runtime', () => {
    for (const args of [UPSTREAM_OPERATOR_CONTROLLER_ARGS.experimental, UPSTREAM_OPERATOR_CONTROLLER_ARGS.experimentalE2e]) {
      expect(parse([...args]).featureGates).toEqual({
        SingleOwnNamespaceInstallSupport: true,
        DeploymentConfig: true,
        WebhookProviderCertManager: true,
        WebhookProviderOpenshiftServiceCA: false,
        BundleReleaseSupport: true,
        BoxcutterRuntime: true,
        TenantExtensions: false,
      });
    }
    expect(parse(['--feature-gates=AllAlpha=true']).featureGates.BoxcutterRuntime).toBe(true);
    expect(parse(['--feature-gates=AllAlpha=true,BoxcutterRuntime=false']).featureGates).toMatchObject({
      BundleReleaseSupport: true,
      BoxcutterRuntime: false,
    });
  });

  it.each([
    [['--v=0'], 'info'],
    [['--v=3'], 'info'],
    [['--v=4'], 'debug'],
    [['--v', '5'], 'trace'],
    [['-v', '10'], 'trace'],
    [['-v=4'], 'debug'],
    [['-v4'], 'debug'],
    [['--v=-1'], 'warn'],
    [['--v=4', '--log-level=debug'], 'debug'],
  ])("maps klog's verbosity %j to the log level %s", (argv, level) => {
    expect(parse(argv).logLevel).toBe(level);
  });

  it.each([
    [['--v=high'], 'invalid --v "high" (want klog\'s verbosity, a whole number)'],
    [['--v=4', '--log-level=info'], '--log-level and --v disagree'],
    [['--vmodule=a.go'], 'invalid --vmodule "a.go": syntax error: expect comma-separated list of filename=N'],
    [['--logtostderr=maybe'], 'invalid --logtostderr value "maybe" (want true or false)'],
    [['--log_file_max_size=1G'], 'invalid --log_file_max_size "1G" (want a whole number)'],
    [['--stderrthreshold=LOUD'], 'invalid --stderrthreshold "LOUD" (want INFO, WARNING, ERROR or FATAL)'],
    [['--log_backtrace_at=here'], 'invalid --log_backtrace_at "here" (want file.go:N)'],
    [['--webhook-server-port=9443'], /webhook-server-port/],
  ])('refuses %j as upstream does', (argv, message) => {
    expect(() => parse(argv)).toThrow(message);
  });

  it("accepts klog's other flags, reporting those set away from klog's defaults", () => {
    expect(
      parse(['--logtostderr', '--alsologtostderr=false', '--pprof-bind-address=0', '--vmodule=', '--log_file_max_size=1800']).flagNotices,
    ).toEqual([]);
    expect(
      parse(['--vmodule=applier*=4,helm.go=2', '--logtostderr=false', '--log_dir=/tmp/logs', '--add_dir_header', '--stderrthreshold=WARNING'])
        .flagNotices,
    ).toEqual([
      { flag: '--vmodule', value: 'applier*=4,helm.go=2', reason: expect.stringContaining('no per-file verbosity') },
      { flag: '--log_dir', value: '/tmp/logs', reason: expect.stringContaining('never to files') },
      { flag: '--logtostderr', value: 'false', reason: expect.stringContaining('never to files') },
      { flag: '--stderrthreshold', value: 'WARNING', reason: expect.stringContaining('never to files') },
      { flag: '--add_dir_header', value: 'true', reason: expect.stringContaining('headers') },
    ]);
  });

  it('help names the upstream flags and the version command', () => {
    for (const s of ['--v N', '--pprof-bind-address', '--vmodule', 'BoxcutterRuntime=false', 'version']) expect(HELP).toContain(s);
  });
});

describe('--cluster-version (the upgrade gate without ClusterVersion)', () => {
  it('takes X.Y and X.Y.Z, keeping the minor', () => {
    expect(parse(['--cluster-version', '4.18']).clusterVersion).toEqual({ major: 4n, minor: 18n });
    expect(parse(['--cluster-version=4.23.7']).clusterVersion).toEqual({ major: 4n, minor: 23n });
    expect(parse([]).clusterVersion).toBeUndefined();
  });

  it('refuses anything else', () => {
    expect(() => parse(['--cluster-version', 'v4.18'])).toThrow(
      'invalid --cluster-version: invalid cluster version "v4.18": No Major.Minor.Patch elements found',
    );
  });
});
