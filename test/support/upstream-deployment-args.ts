/**
 * The `args` of upstream's catalogd and operator-controller Deployments, exactly as upstream's
 * Helm chart (helm/olmv1, at the commit /work/shared/reference describes) renders them: the
 * default values (manifests/standard.yaml), `helm/experimental.yaml` (manifests/experimental.yaml),
 * each with upstream's `helm/e2e.yaml` added (manifests/*-e2e.yaml: `--pprof-bind-address` and the e2e TLS
 * profile), and the OpenShift values' extra arguments. Paths are upstream's (`/var/certs`,
 * `/var/ca-certs`): tests that start the binaries substitute files that exist
 * (withPaths). Shared by the options' unit tests and test/e2e/upstream-deployment-args.test.ts.
 */

const CATALOGD_TLS = ['--tls-cert=/var/certs/tls.crt', '--tls-key=/var/certs/tls.key', '--pull-cas-dir=/var/ca-certs'];
const CATALOGD_E2E_TLS = [
  '--tls-profile=custom',
  '--tls-custom-version=TLSv1.3',
  '--tls-custom-curves=X25519,prime256v1',
  '--tls-custom-ciphers=TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384',
];
const OPERATOR_CONTROLLER_TLS = [
  '--tls-cert=/var/certs/tls.crt',
  '--tls-key=/var/certs/tls.key',
  '--catalogd-cas-dir=/var/ca-certs',
  '--pull-cas-dir=/var/ca-certs',
];

/** catalogd's arguments. */
export const UPSTREAM_CATALOGD_ARGS = {
  standard: [
    '--leader-elect',
    '--metrics-bind-address=:7443',
    '--external-address=catalogd-service.olmv1-system.svc',
    '--feature-gates=APIV1MetasHandler=false',
    ...CATALOGD_TLS,
  ],
  standardE2e: [
    '--leader-elect',
    '--metrics-bind-address=:7443',
    '--pprof-bind-address=:6060',
    '--external-address=catalogd-service.olmv1-system.svc',
    '--feature-gates=APIV1MetasHandler=false',
    ...CATALOGD_TLS,
    ...CATALOGD_E2E_TLS,
  ],
  experimental: [
    '--leader-elect',
    '--metrics-bind-address=:7443',
    '--external-address=catalogd-service.olmv1-system.svc',
    '--feature-gates=APIV1MetasHandler=true',
    '--feature-gates=GraphQLCatalogQueries=true',
    ...CATALOGD_TLS,
  ],
  experimentalE2e: [
    '--leader-elect',
    '--metrics-bind-address=:7443',
    '--pprof-bind-address=:6060',
    '--external-address=catalogd-service.olmv1-system.svc',
    '--feature-gates=APIV1MetasHandler=true',
    '--feature-gates=GraphQLCatalogQueries=true',
    ...CATALOGD_TLS,
    ...CATALOGD_E2E_TLS,
  ],
  /** The OpenShift values (no cert-manager): `${LOG_VERBOSITY}` is filled in by OpenShift's build, here 2. */
  openshift: [
    '--leader-elect',
    '--metrics-bind-address=:7443',
    '--external-address=catalogd-service.olmv1-system.svc',
    '--feature-gates=APIV1MetasHandler=false',
    '--tls-cert=/var/certs/tls.crt',
    '--tls-key=/var/certs/tls.key',
    '--v=2',
    '--global-pull-secret=openshift-config/pull-secret',
  ],
} as const;

const OC_STANDARD_GATES = [
  '--feature-gates=WebhookProviderCertManager=true',
  '--feature-gates=BoxcutterRuntime=false',
  '--feature-gates=BundleReleaseSupport=false',
  '--feature-gates=DeploymentConfig=false',
  '--feature-gates=SingleOwnNamespaceInstallSupport=false',
  '--feature-gates=WebhookProviderOpenshiftServiceCA=false',
];
const OC_EXPERIMENTAL_GATES = [
  '--feature-gates=BoxcutterRuntime=true',
  '--feature-gates=BundleReleaseSupport=true',
  '--feature-gates=DeploymentConfig=true',
  '--feature-gates=SingleOwnNamespaceInstallSupport=true',
  '--feature-gates=WebhookProviderCertManager=true',
  '--feature-gates=WebhookProviderOpenshiftServiceCA=false',
];

/** operator-controller's arguments. */
export const UPSTREAM_OPERATOR_CONTROLLER_ARGS = {
  standard: ['--health-probe-bind-address=:8081', '--metrics-bind-address=:8443', '--leader-elect', ...OC_STANDARD_GATES, ...OPERATOR_CONTROLLER_TLS],
  standardE2e: [
    '--health-probe-bind-address=:8081',
    '--metrics-bind-address=:8443',
    '--pprof-bind-address=:6060',
    '--leader-elect',
    ...OC_STANDARD_GATES,
    ...OPERATOR_CONTROLLER_TLS,
    '--tls-profile=modern',
  ],
  experimental: [
    '--health-probe-bind-address=:8081',
    '--metrics-bind-address=:8443',
    '--leader-elect',
    ...OC_EXPERIMENTAL_GATES,
    ...OPERATOR_CONTROLLER_TLS,
  ],
  experimentalE2e: [
    '--health-probe-bind-address=:8081',
    '--metrics-bind-address=:8443',
    '--pprof-bind-address=:6060',
    '--leader-elect',
    ...OC_EXPERIMENTAL_GATES,
    ...OPERATOR_CONTROLLER_TLS,
    '--tls-profile=modern',
  ],
  /** The OpenShift values: `${LOG_VERBOSITY}` is filled in by OpenShift's build, here 2. */
  openshift: [
    '--health-probe-bind-address=:8081',
    '--metrics-bind-address=:8443',
    '--leader-elect',
    ...OC_STANDARD_GATES,
    '--tls-cert=/var/certs/tls.crt',
    '--tls-key=/var/certs/tls.key',
    '--catalogd-cas-dir=/var/ca-certs',
    '--v=2',
    '--global-pull-secret=openshift-config/pull-secret',
  ],
} as const;

/**
 * `args` with upstream's paths and listen addresses replaced, each in place: `/var/certs/tls.crt`,
 * `/var/certs/tls.key` and `/var/ca-certs` by `paths`, and the value of each `--<flag>=ADDR`
 * named in `addresses` (health, metrics) by its address. Nothing is added or removed.
 */
export function withPaths(
  args: readonly string[],
  paths: { certFile: string; keyFile: string; caDir: string },
  addresses: Readonly<Record<string, string>> = {},
): string[] {
  return args.map((a) => {
    const eq = a.indexOf('=');
    const flag = a.slice(0, eq);
    const address = addresses[flag.replace(/^--/, '')];
    if (address !== undefined) return `${flag}=${address}`;
    return a
      .replace('/var/certs/tls.crt', paths.certFile)
      .replace('/var/certs/tls.key', paths.keyFile)
      .replace(/=\/var\/ca-certs$/, `=${paths.caDir}`);
  });
}
