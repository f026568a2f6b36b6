/**
 * The `cosign` CLI for the sigstore signature-policy tests, built from the Go module proxy with
 * the same recipe mechanism and cache as the other tools (pkg/olmv1/localstack/build.ts:
 * `<cache root>/cosign-<version>/`, built once per machine, one Go build at a time). The tests
 * only need it to make a key pair (`cosign generate-key-pair`) in the encrypted format Debian's
 * skopeo reads for `--sign-by-sigstore-private-key`; no other tool here writes that format.
 */
import { join } from 'node:path';
import { ensureTool, findGoToolchain, type GoToolchain, type ToolRecipe } from '../../pkg/olmv1/localstack/index.ts';

/** The newest cosign v2 the Go module proxy served on this machine's Go (go1.26). */
export const COSIGN_VERSION = 'v2.6.5';

export const COSIGN_RECIPE: ToolRecipe = {
  name: 'cosign',
  version: COSIGN_VERSION,
  module: 'github.com/sigstore/cosign/v2',
  siblingVersion: COSIGN_VERSION,
  binaries: [{ name: 'cosign', pkg: 'github.com/sigstore/cosign/v2/cmd/cosign' }],
  sources: {},
  // release-utils reports this when the main module is ours (version "(devel)").
  stamps: { 'sigs.k8s.io/release-utils/version.gitVersion': COSIGN_VERSION },
  probes: [{ binary: 'cosign', args: ['version'], expect: COSIGN_VERSION }],
  coldBuildCpuSeconds: 900,
};

/** The cosign binary, built first when the cache has none (throws with the build's output). */
export async function resolveCosign(options: { cacheRoot: string; env: NodeJS.ProcessEnv; log: (line: string) => void }): Promise<string> {
  let toolchain: Promise<GoToolchain> | undefined;
  const go = (): Promise<GoToolchain> => (toolchain ??= findGoToolchain(options.env));
  return join(await ensureTool(COSIGN_RECIPE, options.cacheRoot, go, options.log), 'cosign');
}
