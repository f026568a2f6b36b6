/**
 * Upstream's own e2e suite, compiled (its godog runner and Go step definitions, from its Go module
 * at UPSTREAM_FEATURES_VERSION, nothing of it kept in this repository), run against the product
 * as Pods (test/e2e/upstream-compiled-suite.test.ts). What its steps expect of the cluster beyond
 * OLM, which upstream's Makefile and kind setup provide, comes from here:
 *  - the catalog registry its steps push to through a port-forward (Deployment and Service
 *    `docker-registry` in `operator-controller-e2e`, port 5000): a Pod of the distribution
 *    registry the tests build (an image of that one static binary), plain HTTP;
 *  - what upstream's e2e manifests add to operator-controller: registries.conf mapping
 *    `mirrored-registry` and `dynamic-registry` to that registry (here for catalogd too, and
 *    `insecure`: upstream's registry serves TLS from its test CA);
 *  - `CONTAINER_RUNTIME` for the proxy steps, which ask `docker network inspect kind` for the
 *    address Pods reach the host at: a two-line stand-in that prints the node's host address.
 * Results come from godog's cucumber JSON: one entry per scenario, passed, failed or skipped.
 */
import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { runGo, type GoToolchain } from '../../pkg/olmv1/localstack/index.ts';
import { buildImage, buildLayer, type BuiltImage } from '../../pkg/shared/image/index.ts';

/** Upstream's e2e registry (the defaults of its registry test package) and the host the cluster pulls from. */
export const E2E_REGISTRY = { namespace: 'operator-controller-e2e', name: 'docker-registry', port: 5000 } as const;
export const CLUSTER_REGISTRY_HOST = `${E2E_REGISTRY.name}.${E2E_REGISTRY.namespace}.svc.cluster.local:${E2E_REGISTRY.port}`;

/**
 * Compiles upstream's e2e test binary (`go test -c ./test/e2e`, as its Makefile's `go test
 * ./test/e2e/features_test.go`; no build tags) into a cache directory outside the repository,
 * once per version. Throws with go's output when the build fails.
 */
export async function compileUpstreamSuite(go: GoToolchain, moduleDir: string, version: string, log: (line: string) => void): Promise<string> {
  const dir = join(homedir(), '.cache', 'olmv1', 'upstream-e2e', version);
  const binary = join(dir, 'e2e.test');
  if (
    await stat(binary).then(
      (s) => s.isFile(),
      () => false,
    )
  )
    return binary;
  await mkdir(dir, { recursive: true });
  log(`compiling upstream's e2e suite ${version} (go test -c ./test/e2e; minutes the first time)`);
  // The module cache is read-only: its go.sum is complete, so nothing needs writing there.
  await runGo({ ...go, env: { ...go.env, GOFLAGS: '-mod=readonly' } }, ['test', '-c', '-o', binary, './test/e2e'], moduleDir);
  return binary;
}

/** The registry stand-in: the distribution registry binary, serving plain HTTP on :5000 from an emptyDir. */
export function registryImage(binary: Buffer): BuiltImage {
  const config = `version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: /var/lib/registry\n  delete:\n    enabled: true\nhttp:\n  addr: :${E2E_REGISTRY.port}\n`;
  const layer = buildLayer([
    { path: 'bin', type: 'dir' },
    { path: 'etc', type: 'dir' },
    { path: 'etc/distribution', type: 'dir' },
    { path: 'tmp', type: 'dir', mode: 0o1777 },
    { path: 'var', type: 'dir' },
    { path: 'var/lib', type: 'dir' },
    { path: 'var/lib/registry', type: 'dir' },
    { path: 'bin/registry', type: 'file', data: binary, mode: 0o755 },
    { path: 'etc/distribution/config.yml', type: 'file', data: Buffer.from(config) },
  ]);
  return buildImage({ layers: [layer], run: { Cmd: ['/bin/registry', 'serve', '/etc/distribution/config.yml'] } });
}

/** Namespace, Deployment and Service of upstream's e2e registry (the labels and port its port-forward and pulls use). */
export function e2eRegistryManifests(image: string): object {
  const labels = { app: 'registry', 'app.kubernetes.io/name': E2E_REGISTRY.name };
  const { namespace, name, port } = E2E_REGISTRY;
  return {
    apiVersion: 'v1',
    kind: 'List',
    items: [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name, namespace, labels },
        spec: {
          replicas: 1,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              containers: [
                {
                  name: 'registry',
                  image,
                  ports: [{ containerPort: port }],
                  volumeMounts: [{ name: 'storage', mountPath: '/var/lib/registry' }],
                  readinessProbe: { httpGet: { path: '/v2/', port } },
                },
              ],
              volumes: [{ name: 'storage', emptyDir: {} }],
            },
          },
        },
      },
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name, namespace },
        spec: { selector: labels, ports: [{ name: 'http', port, targetPort: port }] },
      },
    ],
  };
}

/** The ConfigMap both components mount at /etc/containers: upstream's mirror prefixes, all over plain HTTP to the e2e registry. */
export function registriesConfMap(namespace: string): object {
  const svc = `${E2E_REGISTRY.namespace}.svc.cluster.local:${E2E_REGISTRY.port}`;
  const table = (prefix: string) => `[[registry]]\nprefix = "${prefix}"\nlocation = "${CLUSTER_REGISTRY_HOST}"\ninsecure = true\n`;
  const conf = [table(CLUSTER_REGISTRY_HOST), table(`mirrored-registry.${svc}`), table(`dynamic-registry.${svc}`)].join('\n');
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'e2e-registries-conf', namespace }, data: { 'registries.conf': conf } };
}

/** A strategic merge patch mounting registriesConfMap at /etc/containers in container `manager`. */
export const REGISTRIES_CONF_PATCH = JSON.stringify({
  spec: {
    template: {
      spec: {
        containers: [{ name: 'manager', volumeMounts: [{ name: 'e2e-registries-conf', mountPath: '/etc/containers', readOnly: true }] }],
        volumes: [{ name: 'e2e-registries-conf', configMap: { name: 'e2e-registries-conf' } }],
      },
    },
  },
});

/** Writes the CONTAINER_RUNTIME stand-in (`<runtime> network inspect kind ...` prints `hostIp`) into `dir`; returns its path. */
export async function containerRuntimeStandIn(dir: string, hostIp: string): Promise<string> {
  const path = join(dir, 'container-runtime');
  await writeFile(path, `#!/bin/sh\necho ${hostIp}\n`);
  await chmod(path, 0o755);
  return path;
}

/** One scenario's outcome, from the cucumber report. */
export interface ScenarioResult {
  /** "<feature file name>: <scenario name>" (an Outline's examples share the name; `line` tells them apart). */
  name: string;
  line: number;
  tags: string[];
  status: 'passed' | 'failed' | 'skipped';
  /** The first step that did not pass (failed, undefined, pending or ambiguous) and its error. */
  failedStep?: string;
  error?: string;
}

interface CucumberStep {
  keyword?: string;
  name?: string;
  result?: { status?: string; error_message?: string };
}
interface CucumberElement {
  name?: string;
  line?: number;
  type?: string;
  tags?: { name?: string }[];
  steps?: CucumberStep[];
}
interface CucumberFeature {
  uri?: string;
  elements?: CucumberElement[];
}

/**
 * Each scenario of godog's cucumber JSON (pure): failed when a step failed or had no definition,
 * skipped when no step ran (a feature gate off), else passed. Throws on text that is not a report.
 */
export function parseCucumberReport(text: string): ScenarioResult[] {
  const features = JSON.parse(text) as CucumberFeature[];
  if (!Array.isArray(features)) throw new Error('not a cucumber JSON report (no feature array)');
  const out: ScenarioResult[] = [];
  for (const f of features) {
    const file =
      (f.uri ?? '')
        .split('/')
        .pop()
        ?.replace(/\.feature$/, '') ?? '';
    for (const e of f.elements ?? []) {
      if (e.type !== undefined && e.type !== 'scenario') continue;
      const steps = e.steps ?? [];
      const bad = steps.find((s) => ['failed', 'undefined', 'pending', 'ambiguous'].includes(s.result?.status ?? ''));
      const ran = steps.some((s) => s.result?.status === 'passed');
      const base = { name: `${file}: ${e.name ?? ''}`, line: e.line ?? 0, tags: (e.tags ?? []).map((t) => t.name ?? '') };
      if (bad !== undefined)
        out.push({
          ...base,
          status: 'failed',
          failedStep: `${(bad.keyword ?? '').trim()} ${bad.name ?? ''}`.trim(),
          error: bad.result?.error_message ?? bad.result?.status ?? '',
        });
      else out.push({ ...base, status: ran || steps.length === 0 ? 'passed' : 'skipped' });
    }
  }
  return out;
}

/** The summary as text: counts, then one line per scenario, each failure with its step and its error's first lines (no stack). */
export function formatSummary(title: string, results: readonly ScenarioResult[], why: (name: string) => string | undefined): string {
  const count = (s: ScenarioResult['status']) => results.filter((r) => r.status === s).length;
  const lines = [`${title}: ${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped (${results.length} scenarios)`];
  for (const r of results) {
    lines.push(`  ${r.status.padEnd(7)} ${r.name} (line ${r.line})${r.status === 'failed' && why(r.name) !== undefined ? ` [${why(r.name)}]` : ''}`);
    if (r.status !== 'failed') continue;
    lines.push(`          step: ${r.failedStep ?? ''}`);
    // testify's Error Trace and its file lines say nothing the step does not.
    const said = (r.error ?? '').split('\n').filter((x) => !/^\s*(Error Trace:.*|\/\S+:\d+|,? ?step error: ?)?\s*$/.test(x));
    for (const l of said.slice(0, 6)) lines.push(`          ${l.trim().slice(0, 240)}`);
  }
  return lines.join('\n') + '\n';
}
