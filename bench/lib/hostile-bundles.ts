/**
 * Hostile bundles for the `hostile` benchmark: registry+v1 bundles just under operator-controller's
 * default unpacked-bytes cap (pkg/shared/image BUNDLE_IMAGE_LIMITS, 32 MiB), as a publisher who
 * wants to exhaust the controller's memory would ship them: generated CRDs with wide, deep
 * OpenAPI schemas (test/fixtures/bundles/large-crds.ts), and ConfigMaps of tens of thousands of
 * small entries each filling the rest, all as YAML (the costliest form to parse and hold: many
 * small objects and strings). Every object stays below what the API server stores for one, so
 * the bundles also install: the benchmark measures the whole path (pull, parse, render, release
 * record, apply), not only a refusal. Only a few CRDs per bundle: each large CRD costs the API
 * server seconds of CPU (its OpenAPI is rebuilt), which would measure the API server instead.
 */
import { dump } from 'js-yaml';
import { join } from 'node:path';
import { buildImage, type ImageClient } from '../../pkg/shared/image/index.ts';
import { type BundleText, writeBundleDir } from '../../test/support/bundle-flow.ts';
import { bundleFiles } from '../../test/support/bundle-gen.ts';
import { largeCrd } from '../../test/fixtures/bundles/large-crds.ts';
import type { PushedBundle } from './extension-bundles.ts';

/** Bytes of JSON of each generated CRD's schema (its YAML is about 2.5 times as large). */
const CRD_JSON_BYTES = 450_000;
/** Large CRDs per bundle. */
const CRDS = 2;
/** Entries of each fill-up ConfigMap (~36 bytes of YAML each: under the 1 MiB a ConfigMap may hold). */
const CONFIGMAP_ENTRIES = 24_000;

let template: string | undefined;

/** The YAML of CRD `things0.large.example.com`, generated once. */
function crdTemplate(): string {
  template ??= dump(largeCrd(0, CRD_JSON_BYTES), { lineWidth: -1 });
  return template;
}

/** A ConfigMap of CONFIGMAP_ENTRIES distinct small entries, as YAML. */
function configMapYaml(name: string, seed: string): string {
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', `  name: ${name}`, 'data:'];
  for (let k = 0; k < CONFIGMAP_ENTRIES; k++) lines.push(`  key${String(k).padStart(5, '0')}: "value ${seed}-${k} of a fill-up"`);
  return `${lines.join('\n')}\n`;
}

/** Bundle files of package `pkg`: the generated bundle (test/support/bundle-gen.ts) plus large CRDs up to about `bytes` in all. */
export function hostileBundleText(pkg: string, bytes: number, version = '1.0.0'): BundleText {
  const files = bundleFiles({ pkg, version });
  let total = 0;
  for (const text of files.values()) total += Buffer.byteLength(text);
  const yaml = crdTemplate();
  for (let i = 0; i < CRDS; i++) {
    const text = yaml.replace(/\b([tT]hing)(s?)0(?=List\b|\b)/g, `$1$2${i}`).replaceAll('large.example.com', `${pkg}.example.com`);
    files.set(`manifests/crd-${i}.yaml`, text);
    total += Buffer.byteLength(text);
  }
  for (let i = 0; ; i++) {
    // The values name the version: an upgrade changes every ConfigMap.
    const text = configMapYaml(`${pkg}-fill-${i}`, `${version}-${i}`);
    if (total + text.length > bytes) break;
    files.set(`manifests/configmap-${String(i).padStart(3, '0')}.yaml`, text);
    total += text.length;
  }
  return files;
}

/** Writes version `version` of the hostile bundle of `pkg` under `root` and pushes it to `<registry>/bench-hostile/<pkg>:v<version>`. */
export async function pushHostileBundle(
  images: ImageClient,
  registry: string,
  root: string,
  pkg: string,
  bytes: number,
  version = '1.0.0',
): Promise<PushedBundle & { bytes: number }> {
  const files = hostileBundleText(pkg, bytes, version);
  const dir = await writeBundleDir(join(root, `${pkg}.v${version}`), files);
  const image = buildImage({
    files: new Map(files),
    labels: { 'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1', 'operators.operatorframework.io.bundle.package.v1': pkg },
  });
  const digest = await images.push(`${registry}/bench-hostile/${pkg}:v${version}`, image);
  let total = 0;
  for (const text of files.values()) total += Buffer.byteLength(text);
  return {
    pkg,
    version,
    name: `${pkg}.v${version}`,
    dir,
    image: `${registry}/bench-hostile/${pkg}@${digest}`,
    objects: files.size,
    layerBytes: image.layers[0]?.size ?? 0,
    bytes: total,
  };
}
