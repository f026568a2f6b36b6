/**
 * `olmv1 catalog mirror CATALOG-IMAGE MIRROR`: copies a catalog image, every bundle image it
 * names and their related images, by digest with their sigstore signatures, to a mirror
 * registry (pkg/olmv1/mirror), and writes the configuration that makes a cluster pull the
 * original references from there.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  clusterCatalog,
  imageDigestMirrorSet,
  mappingText,
  mirrorCatalog,
  parseMirrorPrefix,
  registriesConf,
  type MirrorReport,
} from '../../pkg/olmv1/mirror/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { loadFS } from '../../pkg/shared/fbc/index.ts';
import { CATALOG_CONFIGS_LABEL, createDiskImageCache, type ImageClient } from '../../pkg/shared/image/index.ts';
import type { ProxySelector } from '../../pkg/shared/nodehttp/index.ts';
import { type CommandIO, EXIT } from './io.ts';
import { parseRegistryCommand, registryFlagsHelp, registryImageClient } from './registry-access.ts';

const USAGE = `Usage: olmv1 catalog mirror <catalog-image> <mirror> [--to-dir DIR] [--name NAME] [--authfile FILE] [--ca-file FILE]

Copies the catalog image, every bundle image its olm.bundle entries name and every related
image they list to the registry <mirror> (host[:port][/path]), each under its own repository
path (quay.io/acme/operator -> <mirror>/acme/operator), by digest, with its sigstore signature
when it has one (the cosign tag sha256-<hex>.sig); tags are kept too. Then writes to --to-dir:

  registries.conf               a containers-registries.conf drop-in: every original
                                repository, its mirror first (for catalogd's and
                                operator-controller's --registries-conf, CRI-O, podman)
  imagedigestmirrorset.yaml     the same pairs as an OpenShift ImageDigestMirrorSet
  clustercatalog.yaml           a ClusterCatalog serving the mirrored catalog by digest
  mapping.txt                   source@digest=target@digest, a line per image

The credentials of --authfile serve both registries. Registries on loopback and those in
$OLMV1_INSECURE_REGISTRIES (comma-separated host[:port]) are reached over plain HTTP.

Flags:
  --to-dir DIR         where the files are written (default: ./mirror-<catalog name>)
  --name NAME          the ClusterCatalog's and the ImageDigestMirrorSet's name
                       (default: the catalog repository's last path part)
${registryFlagsHelp(23)}  -h, --help           show this help

Output:
  stdout: what was mirrored and the files written. stderr: each image as it is copied, and
  every image that could not be (with the registry's error).

Exit codes:
  0  every image copied and the files written
  1  some image could not be copied or read (each named; the files list what was copied)
  2  usage error
`;

/** What the composition root provides. */
interface CatalogMirrorDeps {
  insecureRegistries: string[];
  defaultAuthFile: string | undefined;
  proxy?: ProxySelector | undefined;
  signal?: AbortSignal;
}

/** Runs `catalog mirror`; see the file comment. */
export async function runCatalogMirror(args: string[], io: CommandIO, deps: CatalogMirrorDeps): Promise<number> {
  const parsed = parseRegistryCommand(args, io, USAGE, 'a catalog image and a mirror', { 'to-dir': { type: 'string' }, name: { type: 'string' } });
  if (typeof parsed === 'number') return parsed;
  const [catalog, mirrorText] = parsed.positionals;
  const mirror = parseMirrorPrefix(mirrorText);
  if (!mirror.ok) {
    io.stderr.write(`Error: ${mirror.error}\n`);
    return EXIT.usage;
  }
  const name = parsed.values.name ?? defaultName(catalog);
  if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(name)) {
    io.stderr.write(`Error: --name ${JSON.stringify(name)}: a name must be a DNS label (lowercase letters, digits and '-'); give --name\n`);
    return EXIT.usage;
  }
  const images = await registryImageClient(io, parsed.values, deps);
  if (typeof images === 'number') return images;
  const dir = parsed.values['to-dir'] ?? `mirror-${name}`;
  const work = await mkdtemp(join(tmpdir(), 'olmv1-mirror-'));
  let report: MirrorReport;
  try {
    report = await mirrorCatalog(
      {
        loadCatalog: (ref, signal) => loadCatalog(images, ref, work, signal),
        copy: (source, target, options) => images.copy(source, target, options),
      },
      {
        catalog,
        prefix: mirror.prefix,
        ...(deps.signal === undefined ? {} : { signal: deps.signal }),
        progress: ({ image, done, index, total, error }) => {
          const at = `[${index + 1}/${total}]`;
          if (!done) io.stderr.write(`${at} copying ${image.role} ${image.ref} to ${image.target}\n`);
          else if (error !== undefined) io.stderr.write(`${at} failed ${image.ref}: ${error}\n`);
        },
      },
    );
  } catch (err) {
    io.stderr.write(`Error: reading catalog ${catalog}: ${errorMessage(err)}\n`);
    return EXIT.failed;
  } finally {
    images.close();
    await rm(work, { recursive: true, force: true });
  }
  await writeFiles(dir, name, report, deps.insecureRegistries);
  const signed = report.copied.filter((c) => c.signature).length;
  const bytes = report.copied.reduce((n, c) => n + c.bytes, 0);
  io.stdout.write(`mirrored ${report.copied.length} image(s) (${signed} with signatures, ${(bytes / 1e6).toFixed(1)} MB sent) to ${mirror.prefix}\n`);
  io.stdout.write(`wrote ${dir}/registries.conf, imagedigestmirrorset.yaml, clustercatalog.yaml, mapping.txt\n`);
  for (const p of report.problems) io.stderr.write(`cannot mirror: ${p}\n`);
  for (const f of report.failed) io.stderr.write(`not copied: ${f.image.ref}: ${f.error}\n`);
  return report.failed.length > 0 || report.problems.length > 0 ? EXIT.failed : EXIT.ok;
}

/** The catalog repository's last path part, made a DNS label. */
function defaultName(ref: string): string {
  const repo = ref.split('@')[0]?.replace(/:[^/:]*$/, '') ?? ref;
  const last = repo.split('/').at(-1) ?? 'catalog';
  return (
    last
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 63) || 'catalog'
  );
}

/** Pulls the catalog's configs directory into `work` and loads it. */
async function loadCatalog(images: ImageClient, ref: string, work: string, signal?: AbortSignal) {
  const pulled = await images.pull(ref, {
    owner: 'mirror',
    cache: createDiskImageCache(join(work, 'cache')),
    labelPathFilter: CATALOG_CONFIGS_LABEL,
    signal,
  });
  return { digestRef: pulled.digestRef, content: await loadFS(pulled.dir) };
}

async function writeFiles(dir: string, name: string, report: MirrorReport, insecureRegistries: readonly string[]): Promise<void> {
  await mkdir(dir, { recursive: true });
  const insecure = (target: string) => {
    const host = target.split('/')[0] ?? '';
    return insecureRegistries.includes(host) || /^(127\.|localhost(:|$)|\[::1\])/.test(host);
  };
  const catalog = report.copied.find((c) => c.role === 'catalog');
  await writeFile(join(dir, 'registries.conf'), registriesConf(report.copied, insecure));
  await writeFile(join(dir, 'imagedigestmirrorset.yaml'), imageDigestMirrorSet(name, report.copied));
  if (catalog !== undefined) await writeFile(join(dir, 'clustercatalog.yaml'), clusterCatalog(name, `${catalog.target}@${catalog.digest}`));
  await writeFile(join(dir, 'mapping.txt'), mappingText(report.copied));
}
