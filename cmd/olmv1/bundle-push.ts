/**
 * `olmv1 bundle push DIR REF`: checks the bundle as operator-controller parses it, builds its
 * image without Docker as `opm` lays bundle images out, pushes it and prints it by digest
 * (`<repository>@<digest>`, REF's tag dropped: OLM refuses references with both).
 */
import { bundleImageContent, parseBundle, readBundleDir, type BundleFiles } from '../../pkg/operator-controller/bundle/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { buildImage, canonicalReference } from '../../pkg/shared/image/index.ts';
import type { CatalogPushDeps } from './catalog-push.ts';
import { type CommandIO, EXIT } from './io.ts';
import { parsePushArgs, pushBuilt, registryFlagsHelp } from './registry-access.ts';

const USAGE = `Usage: olmv1 bundle push <directory> <image-reference> [--authfile FILE] [--ca-file FILE]

Checks the registry+v1 bundle in <directory> (manifests/ and metadata/annotations.yaml) as
operator-controller reads it, builds its bundle image without Docker (manifests/, metadata/
and tests/ at the image root; every annotation of metadata/annotations.yaml as a label, with
operators.operatorframework.io.bundle.mediatype.v1=registry+v1, ...manifests.v1=manifests/ and
...metadata.v1=metadata/, as operator-sdk and opm build bundle images) and pushes it to
<image-reference> (e.g. quay.io/acme/widgets-bundle:v1.2.0). Registries on loopback and those
in $OLMV1_INSECURE_REGISTRIES (comma-separated host[:port]) are reached over plain HTTP.

Flags:
${registryFlagsHelp(23)}  -h, --help           show this help

Output:
  stdout: the pushed image by digest, <repository>@<digest> (for a catalog's image: field; the
  tag is dropped, as references with both a tag and a digest are refused by OLM).
  stderr: progress, the bundle's error.

Exit codes:
  0  pushed
  1  the bundle is invalid (nothing is pushed) or the push failed
  2  usage error (also an unreadable --authfile or --ca-file)
`;

/** Runs `bundle push`; see the file comment. Same dependencies as `catalog push`. */
export async function runBundlePush(args: string[], io: CommandIO, deps: CatalogPushDeps): Promise<number> {
  const parsed = await parsePushArgs(args, io, USAGE, 'a bundle directory', (dir) => `bundle directory ${dir} not found`);
  if (typeof parsed === 'number') return parsed;
  const { dir } = parsed;

  io.stderr.write(`validating bundle ${dir}\n`);
  const content = await bundleContent(dir);
  if (!content.ok) {
    io.stderr.write(`${content.error}\nnot pushed: the bundle is invalid\n`);
    return EXIT.failed;
  }

  const printed = (digest: string): string => canonicalReference(parsed.parsedRef, digest);
  return pushBuilt(io, { ...deps, ...parsed, printed }, () => buildImage({ files: content.files, labels: content.labels }));
}

type Content = { ok: true; files: Map<string, Buffer>; labels: Record<string, string> } | { ok: false; error: string };

/** Reads and checks the bundle; every expected failure (unreadable entry, parse error, missing package) is a value. */
async function bundleContent(dir: string): Promise<Content> {
  let files: BundleFiles;
  try {
    files = await readBundleDir(dir);
  } catch (err) {
    return { ok: false, error: errorMessage(err) };
  }
  const bundle = parseBundle(files);
  if (!bundle.ok) return { ok: false, error: bundle.error };
  const content = bundleImageContent(files);
  if (!content.ok) return { ok: false, error: content.error };
  const buffers = new Map([...content.value.files].map(([path, b]) => [path, Buffer.from(b.buffer, b.byteOffset, b.byteLength)]));
  return { ok: true, files: buffers, labels: content.value.labels };
}
