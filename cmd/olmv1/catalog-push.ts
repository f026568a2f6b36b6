/**
 * `olmv1 catalog push DIR REF`: validates DIR's catalog, builds a single-layer catalog image (the
 * FBC under `/configs`, with the index label) without Docker, pushes it and prints the digest.
 */
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { goQuote } from '../../pkg/gocompat/gotext/index.ts';
import { buildCatalogImage } from '../../pkg/shared/image/index.ts';
import type { ProxySelector } from '../../pkg/shared/nodehttp/index.ts';
import { validateCatalogDir } from './catalog-validate.ts';
import { type CommandIO, EXIT } from './io.ts';
import { parsePushArgs, pushBuilt, registryFlagsHelp } from './registry-access.ts';

const USAGE = `Usage: olmv1 catalog push <directory> <image-reference> [--authfile FILE] [--ca-file FILE]

Validates the file-based catalog in <directory> (as catalog validate does), builds a catalog
image from it without Docker (the catalog under /configs, with the label
operators.operatorframework.io.index.configs.v1=/configs) and pushes it to <image-reference>
(e.g. quay.io/acme/catalog:latest). Registries on loopback and those in
$OLMV1_INSECURE_REGISTRIES (comma-separated host[:port]) are reached over plain HTTP.

Flags:
${registryFlagsHelp(23)}  -h, --help           show this help

Output:
  stdout: the pushed manifest digest (sha256:...). stderr: progress, the catalog's errors.

Exit codes:
  0  pushed
  1  the catalog is invalid (nothing is pushed) or the push failed
  2  usage error (also an unreadable --authfile or --ca-file)
`;

/** What the composition root provides: where plain HTTP is allowed, the default auth file and the proxy. */
export interface CatalogPushDeps {
  insecureRegistries: string[];
  defaultAuthFile: string | undefined;
  /** The proxy of the environment (HTTPS_PROXY, HTTP_PROXY, NO_PROXY); absent: direct. */
  proxy?: ProxySelector | undefined;
}

/** Runs `catalog push`; see the file comment. */
export async function runCatalogPush(args: string[], io: CommandIO, deps: CatalogPushDeps): Promise<number> {
  const parsed = await parsePushArgs(args, io, USAGE, 'a directory', (dir) => `${dir} is not a directory`);
  if (typeof parsed === 'number') return parsed;
  const { dir } = parsed;

  io.stderr.write(`validating catalog ${dir}\n`);
  const errors = await validateCatalogDir(dir).catch((err: unknown) => [`reading catalog ${goQuote(dir)}: ${errorMessage(err)}`]);
  if (errors.length > 0) {
    for (const e of errors) io.stderr.write(`${e}\n`);
    io.stderr.write(`not pushed: the catalog has ${errors.length} error(s)\n`);
    return EXIT.failed;
  }

  return pushBuilt(io, { ...deps, ...parsed, printed: (digest) => digest }, () => buildCatalogImage(dir));
}
