/**
 * The example operator's image, written without Docker or buildah: the Go program of
 * `examples/example-operator/operator/` built static (CGO off, version set with
 * `-ldflags -X main.version=...`), packed into one layer beside an `/etc/passwd` and
 * `/etc/group` naming its non-root user, and pushed with the project's image client.
 * The same source and version give the same binary and so the same digests.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildImage, buildLayer, createImageClient, type BuiltImage } from '../../shared/image/index.ts';
import { findGoToolchain, runGo } from '../localstack/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';

/** The user the operator runs as (numeric in the config, so Kubernetes can check runAsNonRoot). */
export const EXAMPLE_OPERATOR_UID = 65532;
/** Where the binary sits in the image; the config's Entrypoint. */
const EXAMPLE_OPERATOR_ENTRYPOINT = '/example-operator';
/** Port of /healthz and /readyz (the program's default `--listen :8080`). */
const EXAMPLE_OPERATOR_PORT = 8080;
/** Repository of the operator image inside a registry. */
const EXAMPLE_OPERATOR_REPOSITORY = 'olmv1/example-operator';

type GoToolchain = Awaited<ReturnType<typeof findGoToolchain>>;

/**
 * Builds the operator for `version` (a semver without `v`) into `outDir` and returns the
 * binary's path. Static (the toolchain's environment turns CGO off), `-trimpath`, stripped.
 * Throws with the compiler's output when the build fails.
 */
export async function buildExampleOperatorBinary(go: GoToolchain, sourceDir: string, version: string, outDir: string): Promise<string> {
  if (!/^[0-9A-Za-z.+-]+$/.test(version)) throw new Error(`invalid example operator version ${JSON.stringify(version)}`);
  const out = join(outDir, `example-operator-${version}`);
  await runGo(go, ['build', '-trimpath', '-buildvcs=false', '-ldflags', `-s -w -buildid= -X main.version=${version}`, '-o', out, '.'], sourceDir);
  return out;
}

/**
 * What a static program's image names: its title, where the binary sits (the Entrypoint), its
 * probe port if it has one, and the user it runs as (default: `name`, EXAMPLE_OPERATOR_UID).
 */
export interface ExampleProgram {
  name: string;
  entrypoint: string;
  port?: number;
  description?: string;
  user?: string;
  uid?: number;
}
const EXAMPLE_OPERATOR: ExampleProgram = {
  name: 'example-operator',
  entrypoint: EXAMPLE_OPERATOR_ENTRYPOINT,
  port: EXAMPLE_OPERATOR_PORT,
  description: 'The controller of the example bundles olmv1 up publishes',
};

/**
 * The image of a static program (by default the example operator) over `binary`: one gzip layer
 * holding `/etc/passwd`, `/etc/group` (root and the program's user, no shell) and the binary at
 * `program.entrypoint` (mode 0755, owned by root, so the non-root user cannot change it); the
 * config runs it as that user with no shell and exposes the probe port, if any. Deterministic:
 * mtimes are 0.
 */
export function exampleOperatorImage(binary: Buffer, version: string | undefined, program: ExampleProgram = EXAMPLE_OPERATOR): BuiltImage {
  const { uid = EXAMPLE_OPERATOR_UID, user = program.name } = program;
  const passwd = `root:x:0:0:root:/root:/sbin/nologin\n${user}:x:${uid}:${uid}:${user}:/nonexistent:/sbin/nologin\n`;
  const group = `root:x:0:\n${user}:x:${uid}:\n`;
  const path = program.entrypoint.slice(1);
  const parents = path.split('/').slice(0, -1);
  const layer = buildLayer([
    { path: 'etc', type: 'dir' },
    { path: 'etc/group', type: 'file', data: Buffer.from(group) },
    { path: 'etc/passwd', type: 'file', data: Buffer.from(passwd) },
    ...parents.map((_, i) => ({ path: parents.slice(0, i + 1).join('/'), type: 'dir' as const })),
    { path, type: 'file', data: binary, mode: 0o755 },
  ]);
  return buildImage({
    layers: [layer],
    labels: {
      'org.opencontainers.image.title': program.name,
      ...(version === undefined ? {} : { 'org.opencontainers.image.version': version }),
      ...(program.description === undefined ? {} : { 'org.opencontainers.image.description': program.description }),
    },
    run: {
      User: `${uid}:${uid}`,
      Entrypoint: [program.entrypoint],
      ...(program.port === undefined ? {} : { ExposedPorts: [`${program.port}/tcp`] }),
    },
  });
}

/** What {@link pushExampleOperatorImages} pushed for one version. */
interface PushedOperatorImage {
  version: string;
  /** `<registry>/olmv1/example-operator:v<version>`. */
  tagRef: string;
  /** `<registry>/olmv1/example-operator@sha256:...`: what a bundle should name. */
  digestRef: string;
  /** Compressed bytes (config + layer), as stored in the registry. */
  compressedBytes: number;
  /** Uncompressed bytes of the layer tar. */
  uncompressedBytes: number;
}

/** Options of {@link pushExampleOperatorImages}. */
interface PushExampleOperatorOptions {
  /** `examples/example-operator/operator` of the repository. */
  sourceDir: string;
  versions: readonly string[];
  /** `host[:port]` to push to. */
  registry: string;
  /** Registries spoken to over plain HTTP. */
  insecureRegistries: readonly string[];
  /** Scratch directory for the binaries. */
  workDir: string;
  /** Environment of the Go toolchain (PATH, HOME, GOCACHE, GOPROXY...). */
  env: NodeJS.ProcessEnv;
  /** Repository in the registry (default `olmv1/example-operator`). */
  repository?: string;
}

/**
 * Builds the operator once per version and pushes each image under its version tag; returns
 * them in `versions`' order. Throws when Go is missing or too old, a build fails or a push is
 * refused.
 */
export async function pushExampleOperatorImages(options: PushExampleOperatorOptions): Promise<PushedOperatorImage[]> {
  const go = await findGoToolchain(options.env).catch((err: unknown) => {
    throw new Error(`building the example operator (examples/example-operator/operator) needs Go: ${errorMessage(err)}`, { cause: err });
  });
  const client = createImageClient({ insecureRegistries: options.insecureRegistries });
  try {
    const pushed: PushedOperatorImage[] = [];
    for (const version of options.versions) {
      const binary = await buildExampleOperatorBinary(go, options.sourceDir, version, options.workDir);
      const image = exampleOperatorImage(await readFile(binary), version);
      const repository = options.repository ?? EXAMPLE_OPERATOR_REPOSITORY;
      const tagRef = `${options.registry}/${repository}:v${version}`;
      const digest = await client.push(tagRef, image);
      pushed.push({
        version,
        tagRef,
        digestRef: `${options.registry}/${repository}@${digest}`,
        compressedBytes: image.config.size + image.layers.reduce((n, l) => n + l.size, 0),
        uncompressedBytes: image.layers.reduce((n, l) => n + uncompressedSize(l.data, l.mediaType), 0),
      });
    }
    return pushed;
  } finally {
    client.close();
  }
}

/** The ISIZE trailer of a gzip member (size mod 2^32: exact for layers under 4 GiB). */
function uncompressedSize(data: Buffer, mediaType: string): number {
  return mediaType.endsWith('+gzip') ? data.readUInt32LE(data.length - 4) : data.length;
}
