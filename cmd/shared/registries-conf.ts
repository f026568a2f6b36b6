/**
 * Where containers-registries.conf is read from, as containers/image looks (pkg/shared/image
 * rereads the files before every pull): `$CONTAINERS_REGISTRIES_CONF` (else
 * `$REGISTRIES_CONFIG_PATH`), which must exist; else `~/.config/containers/registries.conf`
 * when it exists (with its `.d` only); else `/etc/containers/registries.conf`; then the `.d`
 * drop-ins of /etc/containers and ~/.config/containers, each in lexical order.
 */
import type { RegistriesConfPaths } from '../../pkg/shared/image/index.ts';

/** The environment section of catalogd's and operator-controller's `--help`. */
export const REGISTRIES_CONF_HELP = `
Environment:
  CONTAINERS_REGISTRIES_CONF        containers-registries.conf(5) with mirrors, blocked and insecure registries,
                                    re-read at each pull (default /etc/containers/registries.conf, then
                                    /etc/containers/registries.conf.d/*.conf)
`;

/** The system-wide locations (containers/image's built-in paths on Linux). */
const SYSTEM_REGISTRIES_CONF = { file: '/etc/containers/registries.conf', dir: '/etc/containers/registries.conf.d' } as const;

/** The paths `env` selects (see the module comment); empty variables count as unset. */
export function registriesConfPaths(env: NodeJS.ProcessEnv): RegistriesConfPaths {
  const explicit = nonEmpty(env.CONTAINERS_REGISTRIES_CONF) ?? nonEmpty(env.REGISTRIES_CONFIG_PATH);
  const home = nonEmpty(env.HOME);
  return {
    ...(explicit === undefined ? {} : { file: explicit }),
    ...(home === undefined
      ? {}
      : { user: { file: `${home}/.config/containers/registries.conf`, dir: `${home}/.config/containers/registries.conf.d` } }),
    system: { ...SYSTEM_REGISTRIES_CONF },
  };
}

function nonEmpty(s: string | undefined): string | undefined {
  return s === undefined || s === '' ? undefined : s;
}
