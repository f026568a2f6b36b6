/**
 * What upstream OLM v1's e2e scenario "Install operator having webhooks" (install.feature of
 * its e2e features, tag @WebhookProviderCertManager) needs before its first
 * step, obtained at test time, nothing of upstream's in this repository:
 * - upstream's bundle itself (testdata/images/bundles/webhook-operator/v0.0.1) from upstream's
 *   Go module at UPSTREAM_E2E_VERSION, fetched into Go's module cache (`go mod download`);
 * - the catalog upstream's step "a catalog ... with packages" builds around it: the same image
 *   labels and file-based catalog (package and catalog names suffixed with the scenario id);
 * - the operator image the bundle names (UPSTREAM_WEBHOOK_IMAGE), which no public registry
 *   serves here: examples/olmtest-webhook-operator's stand-in, pushed to the local registry
 *   under the same repository and tag, for the node to pull through a registry mirror.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readBundleDir } from '../../pkg/operator-controller/bundle/index.ts';
import { buildExampleOperatorBinary, exampleOperatorImage } from '../../pkg/olmv1/images/index.ts';
import { findGoToolchain, runGo } from '../../pkg/olmv1/localstack/index.ts';
import { buildCatalogImage, buildImage, createImageClient } from '../../pkg/shared/image/index.ts';

/**
 * The upstream release whose scenario and bundle are run: the project's behavioural reference
 * for spec.serviceAccount (../shared/reference), whose scenario still names one.
 */
export const UPSTREAM_E2E_VERSION = 'v1.10.0';
const UPSTREAM_MODULE = 'github.com/operator-framework/operator-controller';
const BUNDLE_DIR = 'testdata/images/bundles/webhook-operator/v0.0.1';
/** The image upstream's CSV runs, split as a registry mirror sees it. */
export const UPSTREAM_WEBHOOK_IMAGE = { registry: 'quay.io', repository: 'olmtest/webhook-operator', tag: '0.0.4' };
const STAND_IN_SOURCE = 'examples/olmtest-webhook-operator/operator';

/** Upstream's module at UPSTREAM_E2E_VERSION in Go's module cache: its directory. */
async function upstreamModuleDir(env: NodeJS.ProcessEnv): Promise<string> {
  const go = await findGoToolchain(env);
  // A placeholder module, so the download never runs inside another module.
  const dir = await mkdtemp(join(tmpdir(), 'olmv1-upstream-module-'));
  try {
    await writeFile(join(dir, 'go.mod'), 'module olmv1.local/upstream-e2e\n');
    const { stdout } = await runGo(go, ['mod', 'download', '-json', `${UPSTREAM_MODULE}@${UPSTREAM_E2E_VERSION}`], dir);
    const download = JSON.parse(stdout) as { Dir?: string; Error?: string };
    if (download.Dir === undefined)
      throw new Error(`go mod download ${UPSTREAM_MODULE}@${UPSTREAM_E2E_VERSION}: ${download.Error ?? 'no directory'}`);
    return download.Dir;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** What the scenario's "Given a catalog "test" with packages" produced. */
interface UpstreamCatalog {
  /** The ClusterCatalog's name, `${CATALOG:test}`. */
  catalogName: string;
  catalogRef: string;
  /** `${PACKAGE:webhook-operator}`. */
  packageName: string;
  /** The Deployment image of upstream's CSV, as the bundle names it. */
  operatorImage: string;
}

/**
 * Builds examples/olmtest-webhook-operator's stand-in and pushes it to `registry` (plain HTTP)
 * as UPSTREAM_WEBHOOK_IMAGE's repository and tag, for the node to pull through a quay.io mirror.
 */
export async function pushWebhookOperatorStandIn(o: { repoRoot: string; registry: string; workDir: string; env: NodeJS.ProcessEnv }): Promise<void> {
  const { repository, tag } = UPSTREAM_WEBHOOK_IMAGE;
  const binDir = join(o.workDir, 'upstream-operator');
  await mkdir(binDir, { recursive: true });
  const binary = await buildExampleOperatorBinary(await findGoToolchain(o.env), join(o.repoRoot, STAND_IN_SOURCE), tag, binDir);
  const program = { name: 'webhook-operator', entrypoint: '/manager', port: 8081, description: "A stand-in for upstream's e2e webhook-operator" };
  const client = createImageClient({ insecureRegistries: [o.registry] });
  try {
    await client.push(`${o.registry}/${repository}:${tag}`, exampleOperatorImage(await readFile(binary), tag, program));
  } finally {
    client.close();
  }
}

/**
 * Pushes the stand-in operator image as UPSTREAM_WEBHOOK_IMAGE's repository and tag, upstream's
 * bundle (its files unchanged) and a catalog of package `webhook-operator-<id>`, channel
 * `alpha`, version 0.0.1, as upstream's step builds them, to `registry` (plain HTTP).
 */
export async function pushUpstreamWebhookScenario(o: {
  repoRoot: string;
  registry: string;
  scenarioId: string;
  workDir: string;
  env: NodeJS.ProcessEnv;
}): Promise<UpstreamCatalog> {
  const bundleDir = join(await upstreamModuleDir(o.env), BUNDLE_DIR);
  const csv = await readFile(join(bundleDir, 'manifests/webhook-operator.clusterserviceversion.yaml'), 'utf8');
  const operatorImage = /^\s*image:\s*(\S+)\s*$/m.exec(csv)?.[1] ?? '';
  const { registry: upstreamRegistry, repository, tag } = UPSTREAM_WEBHOOK_IMAGE;
  if (operatorImage !== `${upstreamRegistry}/${repository}:${tag}`)
    throw new Error(`upstream's CSV runs ${operatorImage}, not the image the stand-in replaces`);
  const packageName = `webhook-operator-${o.scenarioId}`;
  const catalogName = `test-catalog-${o.scenarioId}`;
  const client = createImageClient({ insecureRegistries: [o.registry] });
  try {
    await pushWebhookOperatorStandIn(o);

    const files = new Map<string, Buffer>();
    for (const [path, bytes] of await readBundleDir(bundleDir)) if (!path.endsWith('/')) files.set(path, Buffer.from(bytes));
    const bundleRef = `${o.registry}/bundles/${packageName}:v0.0.1`;
    const labels = {
      'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
      'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
      'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
      'operators.operatorframework.io.bundle.package.v1': packageName,
      'operators.operatorframework.io.bundle.channels.v1': 'default',
    };
    await client.push(bundleRef, buildImage({ files, labels }));

    const fbc = [
      `schema: olm.package\nname: ${packageName}`,
      `schema: olm.channel\nname: alpha\npackage: ${packageName}\nentries:\n  - name: ${packageName}.0.0.1`,
      `schema: olm.bundle\nname: ${packageName}.0.0.1\npackage: ${packageName}\nimage: ${bundleRef}\nproperties:\n  - type: olm.package\n    value:\n      packageName: ${packageName}\n      version: 0.0.1`,
    ].join('\n---\n');
    const fbcDir = join(o.workDir, 'upstream-catalog');
    await mkdir(fbcDir, { recursive: true });
    await writeFile(join(fbcDir, 'catalog.yaml'), fbc);
    const catalogRef = `${o.registry}/e2e/${catalogName}:latest`;
    await client.push(catalogRef, await buildCatalogImage(fbcDir));
    return { catalogName, catalogRef, packageName, operatorImage };
  } finally {
    client.close();
  }
}

/** RFC 7386 JSON merge patch of `patch` onto `target` (a new value; inputs untouched). */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/**
 * Upstream's step `resource "..." matches`: the live object is unchanged by a JSON merge patch
 * of the expected content, so every field the expectation names has its value.
 */
export function matchesAsUpstream(live: unknown, expected: unknown): boolean {
  return JSON.stringify(sortKeys(mergePatch(live, expected))) === JSON.stringify(sortKeys(live));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(
    Object.entries(v)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, x]) => [k, sortKeys(x)]),
  );
}
