/**
 * A stand-in for the Dockerfile's base `node:24-slim` on machines that reach no registry serving
 * it: a Debian minbase (debootstrap of the machine's release from apt's mirror) with the
 * project's Node and npm where the official image has them, stored under the official name so
 * the Dockerfile builds unchanged (not its release, packages or `node` user). Built once per key
 * (Node, npm, Debian release, extra CA), a label on the image.
 */
import { createHash } from 'node:crypto';
import { cp, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommand } from '../localstack/index.ts';
import type { Buildah } from './buildah.ts';
import type { DebianSource } from './debian.ts';

/** What the Dockerfile names, fully qualified. */
const STAND_IN_BASE = 'docker.io/library/node:24-slim';
const KEY_LABEL = 'org.olmv1.stand-in.key';
/** Bumped when the recipe below changes, so older stand-ins are rebuilt. */
const RECIPE = 2;
/** Where the stand-in's extra CA file sits, named by npm's global configuration. */
const CA_PATH = 'etc/ssl/certs/build-host-ca.crt';

/** Inputs of the stand-in. */
interface StandInInputs {
  /** The Node binary to install (the project's `node_modules/node/bin/node`). */
  nodeBinary: string;
  /** An npm package directory (holding `bin/npm-cli.js`). */
  npmDir: string;
  debian: DebianSource;
  /**
   * A CA bundle for npm's global `cafile` (a TLS-inspecting proxy's, for the build's `npm ci`);
   * not in the image's environment, so its programs trust no more than on the official base.
   */
  extraCaFile?: string | undefined;
}

/** The stand-in that was found or built. */
export interface StandIn {
  image: string;
  key: string;
  /** False when it was built by this call. */
  cached: boolean;
}

/** The key of a stand-in: what it was built from; a different key means a different image. */
async function standInKey(inputs: StandInInputs, env: NodeJS.ProcessEnv): Promise<string> {
  const node = (await runCommand(inputs.nodeBinary, ['--version'], { env })).stdout.trim();
  const npm = (JSON.parse(await readFile(join(inputs.npmDir, 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  const ca =
    inputs.extraCaFile === undefined
      ? 'none'
      : createHash('sha256')
          .update(await readFile(inputs.extraCaFile))
          .digest('hex')
          .slice(0, 12);
  return `r${RECIPE}-node-${node}-npm-${npm}-debian-${inputs.debian.release}-ca-${ca}`;
}

/**
 * Returns the stand-in for `inputs`, building it first (about two minutes) when the storage
 * holds none with its key. Throws with the failing command's output, the container removed.
 */
export async function ensureStandInBase(
  buildah: Buildah,
  inputs: StandInInputs,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<StandIn> {
  const key = await standInKey(inputs, env);
  const existing = await buildah.imageConfig(STAND_IN_BASE);
  if (existing?.Labels?.[KEY_LABEL] === key) return { image: STAND_IN_BASE, key, cached: true };
  log(`building a stand-in ${STAND_IN_BASE} (${key}): debootstrap ${inputs.debian.release} minbase, then Node and npm`);
  const ctr = (await buildah.run(['from', 'scratch'])).trim();
  try {
    const root = (await buildah.run(['mount', ctr])).trim();
    await runCommand('debootstrap', ['--variant=minbase', inputs.debian.release, root, inputs.debian.mirror], { env });
    // What the slim images drop too: downloaded packages and the package lists.
    for (const dir of ['var/cache/apt/archives', 'var/lib/apt/lists']) {
      for (const e of await readdir(join(root, dir)))
        if (e !== 'partial' && e !== 'lock') await rm(join(root, dir, e), { recursive: true, force: true });
    }
    await mkdir(join(root, 'usr/local/bin'), { recursive: true });
    await mkdir(join(root, 'usr/local/lib/node_modules'), { recursive: true });
    await cp(inputs.nodeBinary, join(root, 'usr/local/bin/node'));
    await cp(inputs.npmDir, join(root, 'usr/local/lib/node_modules/npm'), { recursive: true, verbatimSymlinks: true });
    await symlink('../lib/node_modules/npm/bin/npm-cli.js', join(root, 'usr/local/bin/npm'));
    await symlink('../lib/node_modules/npm/bin/npx-cli.js', join(root, 'usr/local/bin/npx'));
    const config = ['--env', 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', '--cmd', 'node', '--label', `${KEY_LABEL}=${key}`];
    if (inputs.extraCaFile !== undefined) {
      await cp(inputs.extraCaFile, join(root, CA_PATH));
      await mkdir(join(root, 'usr/local/etc'), { recursive: true });
      await writeFile(join(root, 'usr/local/etc/npmrc'), `cafile=/${CA_PATH}\n`);
    }
    await buildah.run(['config', ...config, ctr]);
    await buildah.run(['umount', ctr]);
    await buildah.run(['commit', '--quiet', '--rm', ctr, STAND_IN_BASE]);
  } catch (err) {
    await buildah.run(['rm', ctr]).catch(() => {});
    throw err;
  }
  return { image: STAND_IN_BASE, key, cached: false };
}
