// A CEL dependency rule from a catalog never takes operator-controller down (issue 60, decision
// 0110), on the real API server, registry, catalogd and operator-controller: bundles whose
// `olm.constraint` rules are the two attacks of the issue (nested `all` over literal lists of
// 300, 300 and 30 elements; nested `map` of 200, 200 and 40) are refused from their estimate,
// before running, with a message naming the bundle and the limit, while an ordinary extension
// published beside them installs, /healthz keeps answering promptly and memory stays flat.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  bundleFiles,
  clusterExtension,
  installedAs,
  installerFor,
  packageCatalog,
  publishCatalog,
  pushBundle,
  useExtensionStack,
  waitForExtension,
  type BundleSpec,
} from '../support/extensions.ts';

const run = randomBytes(3).toString('hex');
const suite = useExtensionStack();

const zeros = (n: number): string => `[${Array.from({ length: n }, () => '0').join(',')}]`;
const ALL_ATTACK = `${zeros(300)}.all(a, ${zeros(300)}.all(b, ${zeros(30)}.all(c, c == 0))) && false`;
const MAP_ATTACK = `${zeros(200)}.map(a, ${zeros(200)}.map(b, ${zeros(40)}.map(c, c))).size() == 0`;

/** A package with one bundle, on channel `stable`, carrying `extra` properties. */
async function packageOf(spec: BundleSpec, extra: object[]): Promise<Record<string, string>> {
  const image = await pushBundle(bundleFiles(spec), `${suite.registry}/bundles/${spec.pkg}:v${spec.version}`);
  const files = packageCatalog(spec.pkg, {
    defaultChannel: 'stable',
    channels: [{ name: 'stable', entries: [{ version: spec.version }] }],
    bundles: [{ version: spec.version, image }],
  });
  const path = `${spec.pkg}/catalog.json`;
  const docs = (files[path] ?? '').split('\n').map((line) => JSON.parse(line) as { schema: string; properties?: object[] });
  for (const d of docs) if (d.schema === 'olm.bundle') d.properties = [...(d.properties ?? []), ...extra];
  return { [path]: docs.map((d) => JSON.stringify(d)).join('\n') };
}

/** Polls `url` every 100 ms until stopped: the slowest answer, and the process's largest RSS meanwhile. */
function watchHealth(url: string): { stop: () => Promise<{ slowestMs: number; maxRss: number; failures: number }> } {
  let stopped = false;
  let slowestMs = 0;
  let maxRss = process.memoryUsage().rss;
  let failures = 0;
  const loop = (async () => {
    while (!stopped) {
      const started = performance.now();
      const ok = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(10_000) }).then(
        (r) => r.ok,
        () => false,
      );
      slowestMs = Math.max(slowestMs, performance.now() - started);
      maxRss = Math.max(maxRss, process.memoryUsage().rss);
      if (!ok) failures++;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return { slowestMs, maxRss, failures };
    },
  };
}

const REFUSED = (bundle: string): RegExp =>
  new RegExp(
    `^invalid dependency declaration: bundle "${bundle.replaceAll('.', '\\.')}": property olm\\.constraint #\\d+: value\\.cel: cel rule's estimated cost \\d+ exceeds the limit of 1000000$`,
  );

describe('CEL dependency rules within bounds', () => {
  it('refuses hostile rules from their estimate, naming the bundle and the limit, while an ordinary extension installs and /healthz answers promptly', async () => {
    const { kube } = suite;
    const plain: BundleSpec = { pkg: `plain-${run}`, version: '1.0.0' };
    const cpu: BundleSpec = { pkg: `celcpu-${run}`, version: '1.0.0' };
    const mem: BundleSpec = { pkg: `celmem-${run}`, version: '1.0.0' };
    for (const b of [plain, cpu, mem]) await installerFor(kube.client, b.pkg, 'installer', [b]);
    await publishCatalog(suite.stack, `celcost-${run}`, {
      ...(await packageOf(plain, [])),
      ...(await packageOf(cpu, [{ type: 'olm.constraint', value: { failureMessage: 'never', cel: { rule: ALL_ATTACK } } }])),
      ...(await packageOf(mem, [{ type: 'olm.constraint', value: { cel: { rule: MAP_ATTACK } } }])),
    });

    const health = watchHealth(suite.stack.controller.healthUrl);
    const baseline = process.memoryUsage().rss;
    for (const b of [cpu, mem, plain]) {
      await kube.client.create(clusterExtension(b.pkg, { namespace: b.pkg, serviceAccount: 'installer', packageName: b.pkg }));
    }
    const refusedCpu = await waitForExtension(kube.client, cpu.pkg, 'refused for its CEL rule', (e) =>
      (e.cond('Progressing')?.message ?? '').includes('estimated cost'),
    );
    expect(refusedCpu.cond('Progressing')?.message).toMatch(REFUSED(`${cpu.pkg}.v1.0.0`));
    expect(refusedCpu.install).toBeUndefined();
    const refusedMem = await waitForExtension(kube.client, mem.pkg, 'refused for its CEL rule', (e) =>
      (e.cond('Progressing')?.message ?? '').includes('estimated cost'),
    );
    expect(refusedMem.cond('Progressing')?.message).toMatch(REFUSED(`${mem.pkg}.v1.0.0`));
    await waitForExtension(kube.client, plain.pkg, 'installed beside them', installedAs(`${plain.pkg}.v1.0.0`), 90_000);

    const seen = await health.stop();
    expect(seen.failures).toBe(0);
    // Answers within a second on a loaded 2-core machine; the unbounded rules blocked it for minutes.
    expect(seen.slowestMs).toBeLessThan(1000);
    // Operator-controller runs in this process: its growth while refusing them (the map rule alone took 2.4 GB).
    expect(seen.maxRss - baseline).toBeLessThan(128 * 1024 * 1024);
  });
});
