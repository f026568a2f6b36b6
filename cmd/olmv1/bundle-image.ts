/**
 * Reads a bundle image's files for `render bundle IMAGE` and `rbac IMAGE`, with the image
 * client (verified digests, whiteouts, credentials-free pulls).
 */
import { createImageClient } from '../../pkg/image/index.ts';

/** The files of the image `ref`, keyed by root-relative path. */
export async function fetchBundleFiles(ref: string, options: { insecureRegistries: string[] }): Promise<Map<string, Buffer>> {
  const client = createImageClient({ insecureRegistries: options.insecureRegistries });
  try {
    return (await client.readImageFiles(ref)).files;
  } finally {
    client.close();
  }
}
