/**
 * The service-CA stand-in's image (examples/service-ca-stand-in, docs/webhook-operators.md),
 * written without Docker or buildah like the example operator's: the Go program built static
 * (standard library only), packed into one layer beside an `/etc/passwd` and `/etc/group`
 * naming its non-root user, and pushed with the project's image client. The same source gives
 * the same binary and so the same digest.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createImageClient, type BuiltImage } from '../../shared/image/index.ts';
import { exampleOperatorImage, type ExampleProgram } from './example-operator-image.ts';
import { findGoToolchain, runGo } from '../localstack/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';

/** Repository of the image inside a registry. */
const REPOSITORY = 'olmv1/service-ca-stand-in';
const STAND_IN: ExampleProgram = {
  name: 'service-ca',
  entrypoint: '/service-ca-stand-in',
  description: "Issues serving certificates and injects CA bundles as OpenShift's service-ca-operator does",
};

/** The image over `binary`: the example programs' layout (exampleOperatorImage), no version, no port. */
export function serviceCaStandInImage(binary: Buffer): BuiltImage {
  return exampleOperatorImage(binary, undefined, STAND_IN);
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
