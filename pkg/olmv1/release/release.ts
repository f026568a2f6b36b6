/**
 * A release: the project image of a committed revision built (pkg/olmv1/images, the build the
 * tests and `olmv1 up` share), pushed to `<registry>/<repository>:<version>`, signed by cosign
 * with a key pair (a simple-signing payload in the `sha256-<hex>.sig` attachment, no
 * transparency log), and dist/release/<version>/ written: olmv1.yaml, install.sh, sbom.spdx.json
 * and SHA256SUMS over them. Every tool is injected; the caller composes.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { renderChecksums, type ReleaseFile } from './checksums.ts';
import { manifestCrdProvisions } from './crd-check.ts';
import { renderInstallScript } from './install-script.ts';
import { renderReleaseManifest } from './manifest.ts';
import { renderSbom, type DebianPackage } from './sbom.ts';

/** The file names of a release directory. */
export const RELEASE_FILES = { manifest: 'olmv1.yaml', install: 'install.sh', sbom: 'sbom.spdx.json', sums: 'SHA256SUMS' } as const;

/** The tools a release runs, injected. */
export interface ReleaseTools {
  /** Pushes the built image to `<repository>:<tag>`; resolves with its digest (`sha256:<hex>`). */
  pushImage(repository: string, tag: string): Promise<string>;
  /** Signs `<repository>@<digest>` in its registry (cosign, the key given); absent: the release is unsigned. */
  sign?: (digestRef: string) => Promise<void>;
  /** Extracts config/ of the released revision into `dir/config`. */
  extractConfig(dir: string): Promise<void>;
  /** `kubectl kustomize <dir>`. */
  kustomize(dir: string): Promise<string>;
  /** package-lock.json of the released revision. */
  packageLock(): Promise<string>;
  /** The commit's time, ISO 8601 (the SBOM's creation time, so that it is reproducible). */
  commitTime(): Promise<string>;
  /** The image base's Debian packages (empty when they cannot be listed). */
  debianPackages(): Promise<DebianPackage[]>;
  log(line: string): void;
}

/** What one release is. */
interface ReleaseInput {
  /** `v<semver>`. */
  version: string;
  /** `HOST[:PORT]/REPO`: where the image and its signature go. */
  repository: string;
  /** dist/release: the version's directory is made under it. */
  outDir: string;
}

/** A written release. */
interface Release {
  imageRef: string;
  signed: boolean;
  dir: string;
  files: ReleaseFile[];
}

/** Checks the version and repository (pure): expected mistakes as messages, undefined when fine. */
export function releaseInputProblem(input: Pick<ReleaseInput, 'version' | 'repository'>): string | undefined {
  if (!/^v\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/.test(input.version))
    return `--version ${JSON.stringify(input.version)} is not v<major>.<minor>.<patch>[-<pre>]`;
  if (!/^[a-z0-9.-]+(?::\d+)?\/[a-z0-9._/-]+$/.test(input.repository) || input.repository.endsWith('/'))
    return `--registry ${JSON.stringify(input.repository)} is not HOST[:PORT]/REPOSITORY`;
  return undefined;
}

/** Makes the release; throws when a tool fails or the manifest has an unpinned image. */
export async function makeRelease(input: ReleaseInput, tools: ReleaseTools): Promise<Release> {
  const problem = releaseInputProblem(input);
  if (problem !== undefined) throw new Error(problem);
  const digest = await tools.pushImage(input.repository, input.version);
  if (!/^sha256:[0-9a-f]{64}$/.test(digest)) throw new Error(`the push gave no digest (${JSON.stringify(digest)})`);
  const imageRef = `${input.repository}@${digest}`;
  tools.log(`pushed ${imageRef} (tag ${input.version})`);
  if (tools.sign !== undefined) {
    await tools.sign(imageRef);
    tools.log(`signed ${imageRef}`);
  }
  const { manifest, overlayCrds } = await renderReleaseManifest({ imageRef, extractConfig: tools.extractConfig, kustomize: tools.kustomize });
  const manifestFile: ReleaseFile = { name: RELEASE_FILES.manifest, content: manifest };
  const install: ReleaseFile = {
    name: RELEASE_FILES.install,
    content: renderInstallScript({
      version: input.version,
      manifestName: RELEASE_FILES.manifest,
      manifestSha256: createHash('sha256').update(manifest).digest('hex'),
      imageRef,
      crdCheck: manifestCrdProvisions(manifest, overlayCrds),
    }),
  };
  const sbom: ReleaseFile = {
    name: RELEASE_FILES.sbom,
    content: renderSbom({
      version: input.version,
      imageRef,
      packageLock: await tools.packageLock(),
      debianPackages: await tools.debianPackages(),
      created: await tools.commitTime(),
    }),
  };
  const files = [manifestFile, install, sbom];
  const sums: ReleaseFile = { name: RELEASE_FILES.sums, content: renderChecksums(files) };
  const dir = join(input.outDir, input.version);
  await mkdir(dir, { recursive: true });
  for (const f of [...files, sums]) await writeFile(join(dir, f.name), f.content, { mode: f.name === RELEASE_FILES.install ? 0o755 : 0o644 });
  return { imageRef, signed: tools.sign !== undefined, dir, files: [...files, sums] };
}
