// The console's Deployment (config/console and the chart's options.console) mounts the
// registries.conf drop-ins the components mount in a release (the optional ConfigMap install.sh
// writes from OLMV1_INSECURE_REGISTRIES, an administrator's mirrors) where the console reads them:
// it pulls bundle images for the install form's preview (issue 71), with the same registries.
import { readFileSync } from 'node:fs';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { registriesConfPaths } from '../../cmd/shared/registries-conf.ts';

interface PodSpec {
  containers: Array<{ volumeMounts: Array<{ name: string; mountPath: string; readOnly?: boolean }> }>;
  volumes: Array<{ name: string; configMap?: { name: string; optional?: boolean } }>;
}

/** The ConfigMap a release's components mount (pkg/olmv1/release/manifest.ts REGISTRIES_CONF_CONFIGMAP), which install.sh writes. */
const REGISTRIES_CONF_CONFIGMAP = 'olmv1-registries-conf';
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe("the console Pod's registries.conf", () => {
  it('mounts the optional ConfigMap the components read at the system drop-in directory the console reads', () => {
    const docs = loadAll(read('config/console/console.yaml')) as Array<{ kind?: string; spec?: { template: { spec: PodSpec } } }>;
    const pod = docs.find((d) => d.kind === 'Deployment')?.spec?.template.spec;
    const mount = pod?.containers[0]?.volumeMounts.find((m) => m.name === 'registries-conf');
    const dir = registriesConfPaths({}).system.dir;
    expect(dir).toBe('/etc/containers/registries.conf.d');
    expect(mount).toEqual({ name: 'registries-conf', mountPath: dir, readOnly: true });
    expect(pod?.volumes.find((v) => v.name === 'registries-conf')).toEqual({
      name: 'registries-conf',
      configMap: { name: REGISTRIES_CONF_CONFIGMAP, optional: true },
    });
    // The chart's console renders the same (test/integration/helm-chart-template.test.ts compares the whole Deployment).
    const chart = read('helm/olmv1/templates/console.yaml');
    expect(chart).toContain(`mountPath: ${dir}`);
    expect(chart).toContain(`name: ${REGISTRIES_CONF_CONFIGMAP}\n            optional: true`);
  });
});
