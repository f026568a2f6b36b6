/**
 * buildah (Debian's package) over a private storage under the caller's cache directory, overlay
 * or vfs (storage-driver.ts chooses; each driver has its own roots there), with chroot isolation:
 * no daemon or container runtime (but root), and the machine's own container storage is never
 * touched.
 */
import { runCommand } from '../localstack/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import { storageRoots, type StorageDriver } from './storage-driver.ts';

/** A buildah bound to one storage. */
export interface Buildah {
  /** Runs `buildah <global flags> args...`; resolves with stdout, throws with stderr's tail. */
  run(args: readonly string[], options?: { onStderr?: (chunk: string) => void }): Promise<string>;
  /** The image's OCI config (`config` of the image configuration), undefined when no such image. */
  imageConfig(image: string): Promise<ImageRunSettings | undefined>;
}

/** The fields of an image's config that the checks read. */
export interface ImageRunSettings {
  User?: string;
  Entrypoint?: string[] | null;
  Cmd?: string[] | null;
  Env?: string[];
  WorkingDir?: string;
  Labels?: Record<string, string> | null;
}

/** A buildah whose storage (graph root and run root) of `driver` is under `storageDir`. */
export function createBuildah(storageDir: string, env: NodeJS.ProcessEnv, driver: StorageDriver, command = 'buildah'): Buildah {
  const { root, runRoot } = storageRoots(storageDir, driver);
  const global = ['--root', root, '--runroot', runRoot, '--storage-driver', driver];
  const run = async (args: readonly string[], options: { onStderr?: (chunk: string) => void } = {}): Promise<string> => {
    const { stdout } = await runCommand(command, [...global, ...args], { env, ...(options.onStderr ? { onStderr: options.onStderr } : {}) });
    return stdout;
  };
  return {
    run,
    async imageConfig(image) {
      let out: string;
      try {
        // The whole description: buildah 1.28's --format templates have no `json` function.
        out = await run(['inspect', '--type', 'image', image]);
      } catch (err) {
        if (/image not known|no such image|not found/i.test(errorMessage(err))) return undefined;
        throw err;
      }
      return (JSON.parse(out) as { OCIv1?: { config?: ImageRunSettings } }).OCIv1?.config ?? {};
    },
  };
}
