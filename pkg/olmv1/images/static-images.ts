/**
 * Images of static Go programs, written without Docker or buildah: each program built static
 * (the toolchain's environment turns CGO off, `-trimpath`, stripped), packed into one layer
 * beside an `/etc/passwd` and `/etc/group` naming its non-root user, and pushed with the
 * project's image client; the same source (and version) give the same binary and so the same
 * digests. The programs: the example operator (`examples/example-operator/operator/`, its
 * version set with `-ldflags -X main.version=...`), the service-CA stand-in
 * (examples/service-ca-stand-in, docs/webhook-operators.md) and cert-manager's controller,
 * webhook and cainjector (pkg/olmv1/localstack's cert-manager recipe).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildImage, buildLayer, createImageClient, type BuiltImage } from '../../shared/image/index.ts';
import { findGoToolchain, runGo, type CertManagerBinaries } from '../localstack/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';

/** The user the operator runs as (numeric in the config, so Kubernetes can check runAsNonRoot). */
export const EXAMPLE_OPERATOR_UID = 65532;
/** Repository of the operator image inside a registry. */
const EXAMPLE_OPERATOR_REPOSITORY = 'olmv1/example-operator';

type GoToolchain = Awaited<ReturnType<typeof findGoToolchain>>;

/** The machine's Go toolchain; throws naming `what` needs it when there is none (or too old). */
async function goToBuild(what: string, env: NodeJS.ProcessEnv): Promise<GoToolchain> {
  return findGoToolchain(env).catch((err: unknown) => {
    throw new Error(`building ${what} needs Go: ${errorMessage(err)}`, { cause: err });
  });
}

/** Builds the operator for `version` (semver without `v`) into `outDir`; returns the binary's path. */
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
interface ExampleProgram {
  name: string;
  entrypoint: string;
  port?: number;
  description?: string;
  user?: string;
  uid?: number;
}
const EXAMPLE_OPERATOR: ExampleProgram = {
  name: 'example-operator',
  entrypoint: '/example-operator',
  // Port of /healthz and /readyz (the program's default `--listen :8080`).
  port: 8080,
  description: 'The controller of the example bundles olmv1 up publishes',
};

/**
 * The image of a static program (by default the example operator) over `binary`: its user in
 * `/etc/passwd` and `/etc/group` (no shell), the binary at `program.entrypoint` (mode 0755, owned
 * by root), run as that user, the probe port exposed if any. Deterministic: mtimes are 0.
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

/** Where a program's source is (its directory under `examples/`) and where its image goes. */
interface PushProgramOptions {
  sourceDir: string;
  /** `host[:port]` to push to. */
  registry: string;
  /** Registries spoken to over plain HTTP. */
  insecureRegistries: readonly string[];
  /** Scratch directory for the binaries. */
  workDir: string;
  /** Environment of the Go toolchain (PATH, HOME, GOCACHE, GOPROXY...). */
  env: NodeJS.ProcessEnv;
}

/** Options of {@link pushExampleOperatorImages}. */
interface PushExampleOperatorOptions extends PushProgramOptions {
  versions: readonly string[];
  /** Repository in the registry (default `olmv1/example-operator`). */
  repository?: string;
}

/**
 * Builds the operator once per version and pushes each image under its version tag, in
 * `versions`' order. Throws when Go is missing or too old, a build fails or a push is refused.
 */
export async function pushExampleOperatorImages(options: PushExampleOperatorOptions): Promise<PushedOperatorImage[]> {
  const go = await goToBuild('the example operator (examples/example-operator/operator)', options.env);
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

/** Repository of the service-CA stand-in's image inside a registry. */
const SERVICE_CA_REPOSITORY = 'olmv1/service-ca-stand-in';
const STAND_IN: ExampleProgram = {
  name: 'service-ca',
  entrypoint: '/service-ca-stand-in',
  description: "Issues serving certificates and injects CA bundles as OpenShift's service-ca-operator does",
};

/** The image over `binary`: the example programs' layout (exampleOperatorImage), no version, no port. */
export function serviceCaStandInImage(binary: Buffer): BuiltImage {
  return exampleOperatorImage(binary, undefined, STAND_IN);
}

/**
 * Builds the stand-in and pushes its image as `<registry>/olmv1/service-ca-stand-in:latest`;
 * returns the digest reference. Throws as pushExampleOperatorImages does.
 */
export async function pushServiceCaStandInImage(options: PushProgramOptions): Promise<string> {
  const go = await goToBuild('the service-CA stand-in (examples/service-ca-stand-in)', options.env);
  const out = join(options.workDir, 'service-ca-stand-in');
  await runGo(go, ['build', '-trimpath', '-buildvcs=false', '-ldflags', '-s -w -buildid=', '-o', out, '.'], options.sourceDir);
  const client = createImageClient({ insecureRegistries: options.insecureRegistries });
  try {
    const digest = await client.push(`${options.registry}/${SERVICE_CA_REPOSITORY}:latest`, serviceCaStandInImage(await readFile(out)));
    return `${options.registry}/${SERVICE_CA_REPOSITORY}@${digest}`;
  } finally {
    client.close();
  }
}

/** The user cert-manager runs as, as upstream's images do. */
const CERT_MANAGER_UID = 1000;

/** The three components; each image's repository is `cert-manager/<component>`. */
const COMPONENTS = ['controller', 'webhook', 'cainjector'] as const;
type CertManagerComponent = (typeof COMPONENTS)[number];

/** Digest references of the pushed images, by component. */
export type CertManagerImages = Record<CertManagerComponent, string>;

/**
 * Pushes the three images of `binaries` to `registry` as `cert-manager/<component>:<version>`;
 * returns their digest references. Throws when a binary cannot be read or a push is refused.
 */
export async function pushCertManagerImages(
  binaries: CertManagerBinaries,
  registry: string,
  insecureRegistries: readonly string[],
): Promise<CertManagerImages> {
  const client = createImageClient({ insecureRegistries });
  try {
    const refs: Partial<CertManagerImages> = {};
    for (const component of COMPONENTS) {
      // The binary at `/app/cmd/<component>`, run as CERT_MANAGER_UID with no shell.
      const program = { name: `cert-manager-${component}`, entrypoint: `/app/cmd/${component}`, user: 'cert-manager', uid: CERT_MANAGER_UID };
      const image = exampleOperatorImage(await readFile(binaries[component]), binaries.version, program);
      const digest = await client.push(`${registry}/cert-manager/${component}:${binaries.version}`, image);
      refs[component] = `${registry}/cert-manager/${component}@${digest}`;
    }
    return refs as CertManagerImages;
  } finally {
    client.close();
  }
}
