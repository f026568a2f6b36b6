/**
 * What a registry+v1 bundle image holds, as `operator-sdk bundle`/`opm` build it: the files
 * under `manifests/`, `metadata/` (and `tests/`) at the image root, and every annotation of
 * `metadata/annotations.yaml` as a label, the three layout labels fixed. Pure.
 */
import { err, ok, type Result } from '../../shared/errors/index.ts';
import { decodeSingleDocument, decodeUtf8 } from '../../gocompat/goyaml/index.ts';
import { PACKAGE_ANNOTATION } from './parse-bundle.ts';
import type { BundleFiles } from './types.ts';

/** The labels whose values the layout fixes (operator-framework/api `bundle` constants). */
const BUNDLE_LAYOUT_LABELS = {
  'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
  'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
  'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
} as const;

/** Files (root-relative paths) and image labels of a bundle image. */
interface BundleImageContent {
  files: Map<string, Uint8Array>;
  labels: Record<string, string>;
}

const PACKAGED_DIRS = ['manifests/', 'metadata/', 'tests/'];

/**
 * The content of the image for a bundle directory's files (`readBundleDir`'s map). Call it on
 * a bundle `parseBundle` accepted: it only reads the annotations.
 *
 * Fails with a message when `metadata/annotations.yaml` holds no `annotations` object or names
 * no package (an image without the package label cannot be added to a catalog).
 */
export function bundleImageContent(files: BundleFiles): Result<BundleImageContent, string> {
  const annotations = readAnnotations(files.get('metadata/annotations.yaml'));
  if (!annotations.ok) return annotations;
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(annotations.value)) if (typeof v === 'string') labels[k] = v;
  if ((labels[PACKAGE_ANNOTATION] ?? '') === '')
    return err(`metadata/annotations.yaml: annotation ${PACKAGE_ANNOTATION} (the package name) is not set`);
  Object.assign(labels, BUNDLE_LAYOUT_LABELS);
  const content = new Map<string, Uint8Array>();
  for (const [path, bytes] of files) {
    // Directory keys end in "/": the image build adds the directories of the files it holds.
    if (path.endsWith('/') || !PACKAGED_DIRS.some((d) => path.startsWith(d))) continue;
    content.set(path, bytes);
  }
  return ok({ files: content, labels });
}

function readAnnotations(bytes: Uint8Array | undefined): Result<Record<string, unknown>, string> {
  if (bytes === undefined) return err('open metadata/annotations.yaml: file does not exist');
  const text = decodeUtf8(bytes);
  const doc = text.ok ? decodeSingleDocument(text.value) : text;
  if (!doc.ok) return err(`metadata/annotations.yaml: ${doc.error}`);
  const annotations = isObject(doc.value) ? doc.value['annotations'] : undefined;
  if (!isObject(annotations)) return err('metadata/annotations.yaml: no annotations object');
  return ok(annotations);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
