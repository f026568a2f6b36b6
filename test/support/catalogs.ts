/**
 * Test helpers for catalog content: write small FBC directories, push them as catalog images
 * to a test registry, and wait for ClusterCatalog conditions.
 */
import { vi } from 'vitest';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { buildCatalogImage, createImageClient, type DockerConfig } from '../../pkg/shared/image/index.ts';
import type { KubeClient, KubeObject } from '../../pkg/shared/kube/index.ts';
import { testTempDir } from './temp-dir.ts';

/**
 * Writes `files` (path -> content; objects are JSON-encoded) into a new temp directory, removed
 * when the calling test finishes (so call it inside a test, not in a hook).
 */
export async function writeCatalogDir(files: Record<string, string | object>): Promise<string> {
  return writeCatalogFiles(await testTempDir('fbc-'), files);
}

/** Writes `files` (path -> content; objects are JSON-encoded) under `dir`; returns `dir`. */
export async function writeCatalogFiles(dir: string, files: Record<string, string | object>): Promise<string> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return dir;
}

/** A one-package catalog with bundles `<pkg>.v<version>` chained by `replaces` in channel `stable`. */
export function simpleCatalog(pkg: string, versions: string[]): Record<string, string> {
  const docs: object[] = [{ schema: 'olm.package', name: pkg, defaultChannel: 'stable' }];
  docs.push({
    schema: 'olm.channel',
    package: pkg,
    name: 'stable',
    entries: versions.map((v, i) => ({ name: `${pkg}.v${v}`, ...(i > 0 ? { replaces: `${pkg}.v${versions[i - 1]}` } : {}) })),
  });
  for (const v of versions) {
    docs.push({
      schema: 'olm.bundle',
      package: pkg,
      name: `${pkg}.v${v}`,
      image: `registry.test/${pkg}-bundle:v${v}`,
      properties: [{ type: 'olm.package', value: { packageName: pkg, version: v } }],
    });
  }
  return { [`${pkg}/catalog.json`]: docs.map((d) => JSON.stringify(d)).join('\n') };
}

/** Pushes `dir` as a catalog image to `ref` (plain HTTP to loopback); returns the digest. */
export async function pushCatalog(dir: string, ref: string, credentials?: DockerConfig): Promise<string> {
  const client = createImageClient({ insecureRegistries: ['127.0.0.1'], ...(credentials === undefined ? {} : { credentials }) });
  try {
    return await client.push(ref, await buildCatalogImage(dir));
  } finally {
    client.close();
  }
}

/** The condition of `type` on `obj`, if any. */
export function condition(
  obj: KubeObject | undefined,
  type: string,
): { status: string; reason: string; message: string; observedGeneration?: number } | undefined {
  const conds = (obj?.status as { conditions?: Array<{ type: string; status: string; reason: string; message: string }> } | undefined)?.conditions;
  return conds?.find((c) => c.type === type);
}

/** Polls the ClusterCatalog until `until` holds; throws with the last status after `timeoutMs`. */
export async function waitForCatalog(client: KubeClient, name: string, until: (cc: KubeObject) => boolean, timeoutMs = 60_000): Promise<KubeObject> {
  let last: KubeObject | undefined;
  try {
    return await vi.waitFor(
      async () => {
        last = await client.get({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', name }).catch(() => undefined);
        if (last === undefined || !until(last)) throw new Error(`ClusterCatalog ${name} not yet in the expected state`);
        return last;
      },
      { timeout: timeoutMs, interval: 200 },
    );
  } catch (err) {
    throw new Error(`ClusterCatalog ${name} did not reach the expected state; last status: ${JSON.stringify(last?.status)}`, { cause: err });
  }
}

/**
 * The file-based catalog documents of one package with one bundle, `<pkg>.v1.0.0` (version
 * 1.0.0, channel stable), of `image`, with the CSV's metadata `csvMetadata` and more `properties`.
 */
export function onePackageDocs(pkg: string, image: string, csvMetadata: object, properties: readonly object[] = []): object[] {
  return [
    { schema: 'olm.package', name: pkg, defaultChannel: 'stable' },
    { schema: 'olm.channel', package: pkg, name: 'stable', entries: [{ name: `${pkg}.v1.0.0` }] },
    {
      schema: 'olm.bundle',
      package: pkg,
      name: `${pkg}.v1.0.0`,
      image,
      properties: [
        { type: 'olm.package', value: { packageName: pkg, version: '1.0.0' } },
        { type: 'olm.csv.metadata', value: csvMetadata },
        ...properties,
      ],
    },
  ];
}
