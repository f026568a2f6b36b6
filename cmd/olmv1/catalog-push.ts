/**
 * `olmv1 catalog push DIR REF [--authfile FILE]`: validates the file-based catalog in DIR,
 * builds a single-layer catalog image (the FBC under `/configs`, label
 * `operators.operatorframework.io.index.configs.v1=/configs`) without Docker, pushes it to REF
 * and prints the manifest digest on stdout. Progress goes to stderr.
 *
 * Exit codes: 0 pushed, 1 invalid catalog or push failed, 2 usage error.
 */
import { stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { errorMessage } from '../../pkg/errors/index.ts';
import { goQuote } from '../../pkg/gotext/index.ts';
import { readRegularFile } from '../../pkg/localfs/index.ts';
import { type DockerConfig, buildCatalogImage, createImageClient, parseDockerConfigJson, parseImageReference } from '../../pkg/image/index.ts';
import { validateCatalogDir } from './catalog-validate.ts';
import { type CommandIO, EXIT } from './io.ts';

const USAGE = `Usage: olmv1 catalog push <directory> <image-reference> [--authfile FILE]

Validate the file-based catalog in <directory>, build a catalog image from it and push it to
<image-reference> (e.g. quay.io/acme/catalog:latest). Prints the pushed manifest digest.

Flags:
  --authfile FILE   registry credentials in Docker config.json format
                    (default: $REGISTRY_AUTH_FILE, else ~/.docker/config.json when present)
  -h, --help        Show this help
`;

/** What the composition root provides: where plain HTTP is allowed and the default auth file. */
export interface CatalogPushDeps {
  insecureRegistries: string[];
  defaultAuthFile: string | undefined;
}

/** Runs `catalog push`; see the file comment. */
export async function runCatalogPush(args: string[], io: CommandIO, deps: CatalogPushDeps): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { authfile: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (err) {
    io.stderr.write(`Error: ${errorMessage(err)}\n\n${USAGE}`);
    return EXIT.usage;
  }
  if (parsed.values.help === true) {
    io.stdout.write(USAGE);
    return EXIT.ok;
  }
  const [dir, ref, ...extra] = parsed.positionals;
  if (dir === undefined || ref === undefined || extra.length > 0) {
    io.stderr.write(`Error: expected a directory and an image reference\n\n${USAGE}`);
    return EXIT.usage;
  }
  if (
    !(await stat(dir).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  ) {
    io.stderr.write(`Error: ${goQuote(dir)} is not a directory\n`);
    return EXIT.usage;
  }
  const refError = referenceError(ref);
  if (refError !== undefined) {
    io.stderr.write(`Error: ${refError}\n`);
    return EXIT.usage;
  }

  io.stderr.write(`validating catalog ${dir}\n`);
  const errors = await validateCatalogDir(dir).catch((err: unknown) => [`reading catalog ${goQuote(dir)}: ${errorMessage(err)}`]);
  if (errors.length > 0) {
    for (const e of errors) io.stderr.write(`${e}\n`);
    io.stderr.write(`not pushed: the catalog has ${errors.length} error(s)\n`);
    return EXIT.failed;
  }

  let credentials: DockerConfig | undefined;
  const authFile = parsed.values.authfile ?? deps.defaultAuthFile;
  try {
    credentials = await loadAuthFile(authFile, parsed.values.authfile !== undefined);
  } catch (err) {
    io.stderr.write(`Error: ${errorMessage(err)}\n`);
    return EXIT.usage;
  }
  const client = createImageClient({ insecureRegistries: deps.insecureRegistries, ...(credentials === undefined ? {} : { credentials }) });
  try {
    const image = await buildCatalogImage(dir);
    const bytes = image.layers.reduce((n, l) => n + l.size, 0);
    io.stderr.write(`pushing ${(bytes / 1e6).toFixed(1)} MB to ${ref}\n`);
    const digest = await client.push(ref, image);
    io.stdout.write(`${digest}\n`);
    return EXIT.ok;
  } catch (err) {
    io.stderr.write(`Error: pushing ${ref}: ${errorMessage(err)}\n`);
    return EXIT.failed;
  } finally {
    client.close();
  }
}

function referenceError(ref: string): string | undefined {
  try {
    parseImageReference(ref);
    return undefined;
  } catch (err) {
    return errorMessage(err);
  }
}

// Far above any real Docker config.json; a larger file is refused before it is read.
const MAX_AUTH_FILE_BYTES = 4 << 20;

/** Reads a Docker config.json; a missing default file means anonymous, a missing given file is an error. */
async function loadAuthFile(path: string | undefined, explicit: boolean): Promise<DockerConfig | undefined> {
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = (await readRegularFile(path, { maxBytes: MAX_AUTH_FILE_BYTES })).toString('utf8');
  } catch (err) {
    if (!explicit && ((err as Error).cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') return undefined;
    throw new Error(`reading --authfile: ${errorMessage(err)}`, { cause: err });
  }
  return parseDockerConfigJson(text, path);
}
