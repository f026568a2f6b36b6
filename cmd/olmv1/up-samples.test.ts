// config/samples/ is a contract (`kubectl apply -f config/samples/` installs the example
// operator on the stack `olmv1 up` runs): the committed RBAC must be what `olmv1 rbac` prints
// for the example bundle today, and the samples must agree with each other and with the
// example catalog.
import { readFileSync } from 'node:fs';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { runRbac } from './rbac.ts';
import type { CommandIO } from './io.ts';

const repo = (path: string): string => new URL(`../../${path}`, import.meta.url).pathname;
const read = (path: string): string => readFileSync(repo(path), 'utf8');

interface Doc {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: Record<string, unknown>;
}

describe('config/samples', () => {
  it('example-operator-installer.yaml is the Namespace followed by exactly what olmv1 rbac prints for the example bundle', async () => {
    let out = '';
    let err = '';
    const io: CommandIO = { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } };
    const code = await runRbac(
      [repo('examples/example-operator/bundles/1.0.0'), '--install-namespace', 'example-operator', '--service-account', 'example-operator-installer'],
      io,
      {},
    );
    expect(err).toBe('');
    expect(code).toBe(0);
    const committed = read('config/samples/example-operator-installer.yaml');
    const namespaceDoc = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: example-operator\n';
    const at = committed.indexOf(namespaceDoc);
    expect(at, 'the file starts (after comments) with the Namespace').toBeGreaterThanOrEqual(0);
    expect(
      committed
        .slice(0, at)
        .split('\n')
        .filter((l) => l !== '' && !l.startsWith('#')),
    ).toEqual([]);
    expect(committed.slice(at + namespaceDoc.length), 'regenerate it with the command in its header').toBe(out);
  });

  it('the ClusterExtension uses that namespace and ServiceAccount and selects the sample catalog', () => {
    const installer = loadAll(read('config/samples/example-operator-installer.yaml')) as Doc[];
    const [catalog] = loadAll(read('config/samples/olm_v1_clustercatalog.yaml')) as Doc[];
    const [extension] = loadAll(read('config/samples/olm_v1_clusterextension.yaml')) as Doc[];
    const spec = extension?.spec as {
      namespace: string;
      serviceAccount: { name: string };
      source: { catalog: { packageName: string; selector: { matchLabels: Record<string, string> } } };
    };
    expect(installer[0]).toMatchObject({ kind: 'Namespace', metadata: { name: spec.namespace } });
    expect(installer.find((d) => d.kind === 'ServiceAccount')?.metadata).toEqual({ name: spec.serviceAccount.name, namespace: spec.namespace });
    expect(spec.source.catalog.packageName).toBe('example-operator');
    expect(spec.source.catalog.selector.matchLabels['olm.operatorframework.io/metadata.name']).toBe(catalog?.metadata.name);
  });

  it('the example catalog lists bundle images in the registry the ClusterCatalog sample points at', () => {
    const [catalog] = loadAll(read('config/samples/olm_v1_clustercatalog.yaml')) as Doc[];
    const ref = (catalog?.spec as { source: { image: { ref: string } } }).source.image.ref;
    const host = ref.slice(0, ref.indexOf('/'));
    const docs = loadAll(read('examples/example-operator/catalog/example-operator/catalog.yaml')) as Array<{ schema: string; image?: string }>;
    const images = docs.filter((d) => d.schema === 'olm.bundle').map((d) => d.image ?? '');
    expect(images).toHaveLength(4);
    for (const image of images) expect(image.startsWith(`${host}/`)).toBe(true);
  });
});
