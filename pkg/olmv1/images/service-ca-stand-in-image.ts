/**
 * The service-CA stand-in's image (examples/service-ca-stand-in, docs/webhook-operators.md),
 * written without Docker or buildah like the example operator's: the Go program built static
 * (standard library only), packed into one layer beside an `/etc/passwd` and `/etc/group`
 * naming its non-root user, and pushed with the project's image client. The same source gives
 * the same binary and so the same digest.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildImage, buildLayer, createImageClient, type BuiltImage } from '../../shared/image/index.ts';
import { findGoToolchain, runGo } from '../localstack/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';

/** The user the stand-in runs as (numeric, so Kubernetes can check runAsNonRoot). */
const STAND_IN_UID = 65532;
const ENTRYPOINT = '/service-ca-stand-in';
/** Repository of the image inside a registry. */
const REPOSITORY = 'olmv1/service-ca-stand-in';

/**
 * The image over `binary`: one gzip layer holding `/etc/passwd`, `/etc/group` and the binary
 * (mode 0755, owned by root), run as STAND_IN_UID with no shell. Deterministic: mtimes are 0.
 */
export function serviceCaStandInImage(binary: Buffer): BuiltImage {
  const uid = STAND_IN_UID;
  const passwd = `root:x:0:0:root:/root:/sbin/nologin\nservice-ca:x:${uid}:${uid}:service-ca:/nonexistent:/sbin/nologin\n`;
  const group = `root:x:0:\nservice-ca:x:${uid}:\n`;
  const layer = buildLayer([
    { path: 'etc', type: 'dir' },
    { path: 'etc/group', type: 'file', data: Buffer.from(group) },
    { path: 'etc/passwd', type: 'file', data: Buffer.from(passwd) },
    { path: ENTRYPOINT.slice(1), type: 'file', data: binary, mode: 0o755 },
  ]);
  return buildImage({
    layers: [layer],
    labels: {
      'org.opencontainers.image.title': 'service-ca-stand-in',
      'org.opencontainers.image.description': "Issues serving certificates and injects CA bundles as OpenShift's service-ca-operator does",
    },
    run: { User: `${uid}:${uid}`, Entrypoint: [ENTRYPOINT] },
  });
}

/** Options of {@link pushServiceCaStandInImage}. */
interface PushServiceCaStandInOptions {
  /** `examples/service-ca-stand-in` of the repository. */
  sourceDir: string;
  /** `host[:port]` to push to. */
  registry: string;
  /** Registries spoken to over plain HTTP. */
  insecureRegistries: readonly string[];
  /** Scratch directory for the binary. */
  workDir: string;
  /** Environment of the Go toolchain (PATH, HOME, GOCACHE, GOPROXY...). */
  env: NodeJS.ProcessEnv;
}

/**
 * Builds the stand-in (static, `-trimpath`, stripped) and pushes its image as
 * `<registry>/olmv1/service-ca-stand-in:latest`; returns the digest reference. Throws when Go
 * is missing or too old, the build fails or the push is refused.
 */
export async function pushServiceCaStandInImage(options: PushServiceCaStandInOptions): Promise<string> {
  const go = await findGoToolchain(options.env).catch((err: unknown) => {
    throw new Error(`building the service-CA stand-in (examples/service-ca-stand-in) needs Go: ${errorMessage(err)}`, { cause: err });
  });
  const out = join(options.workDir, 'service-ca-stand-in');
  await runGo(go, ['build', '-trimpath', '-buildvcs=false', '-ldflags', '-s -w -buildid=', '-o', out, '.'], options.sourceDir);
  const client = createImageClient({ insecureRegistries: options.insecureRegistries });
  try {
    const digest = await client.push(`${options.registry}/${REPOSITORY}:latest`, serviceCaStandInImage(await readFile(out)));
    return `${options.registry}/${REPOSITORY}@${digest}`;
  } finally {
    client.close();
  }
}
