/**
 * Reads a bundle image's files for `render bundle IMAGE` and `rbac IMAGE` with the image client,
 * registry access, registries.conf, the containers signature policy and the environment's proxy.
 */
import { createImageClient, type ImageLimits, type RegistriesConfPaths, type SignaturePolicyPaths } from '../../pkg/shared/image/index.ts';
import type { ProxySelector } from '../../pkg/shared/nodehttp/index.ts';
import type { RegistryAccess } from './registry-access.ts';

/** The files of the image `ref`, keyed by root-relative path; the caps are checked while it is unpacked. */
export async function fetchBundleFiles(
  ref: string,
  options: {
    insecureRegistries: string[];
    limits: ImageLimits;
    registriesConf?: RegistriesConfPaths | undefined;
    /** Where the containers signature policy is read (as the components read it); unset: no check. */
    signaturePolicy?: SignaturePolicyPaths | undefined;
    proxy?: ProxySelector;
  } & RegistryAccess,
): Promise<Map<string, Buffer>> {
  const client = createImageClient(options);
  try {
    return (await client.readImageFiles(ref)).files;
  } finally {
    client.close();
  }
}
