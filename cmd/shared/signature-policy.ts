/**
 * Where the containers signature policy and registries.d are read from, as containers/image
 * looks (upstream's components have no flag for it; pkg/shared/image/signature-check.ts rereads the files
 * before every uncached pull): `~/.config/containers/policy.json` when it exists, else
 * `/etc/containers/policy.json`; `~/.config/containers/registries.d` when it exists, else
 * `/etc/containers/registries.d`.
 */
import type { SignaturePolicyPaths } from '../../pkg/shared/image/index.ts';

/** The paths `env` selects (an empty or unset HOME: the system files only). */
export function signaturePolicyPaths(env: NodeJS.ProcessEnv): SignaturePolicyPaths {
  const home = env.HOME === undefined || env.HOME === '' ? undefined : env.HOME;
  return {
    ...(home === undefined
      ? {}
      : { userPolicy: `${home}/.config/containers/policy.json`, userRegistriesDir: `${home}/.config/containers/registries.d` }),
    systemPolicy: '/etc/containers/policy.json',
    systemRegistriesDir: '/etc/containers/registries.d',
  };
}
