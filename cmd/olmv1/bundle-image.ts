/**
 * Reads a bundle image's files for `render bundle IMAGE` and `rbac IMAGE`, with the image
 * client (verified digests, whiteouts), the credentials and CAs of `--authfile`/`--ca-file`.
 */
import { createImageClient, type ImageLimits } from '../../pkg/image/index.ts';
import type { RegistryAccess } from './registry-access.ts';

/** The files of the image `ref`, keyed by root-relative path; the caps are checked while it is unpacked. */
export async function fetchBundleFiles(
  ref: string,
  options: { insecureRegistries: string[]; limits: ImageLimits } & RegistryAccess,
): Promise<Map<string, Buffer>> {
  const client = createImageClient(options);
  try {
    return (await client.readImageFiles(ref)).files;
  } finally {
    client.close();
  }
}
