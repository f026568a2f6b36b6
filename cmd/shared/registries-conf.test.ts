import { describe, expect, it } from 'vitest';
import { registriesConfPaths } from './registries-conf.ts';

const SYSTEM = { file: '/etc/containers/registries.conf', dir: '/etc/containers/registries.conf.d' };
const USER = { file: '/home/me/.config/containers/registries.conf', dir: '/home/me/.config/containers/registries.conf.d' };

describe('registriesConfPaths', () => {
  it.each([
    ['the system locations alone without HOME', {}, { system: SYSTEM }],
    ['the per-user locations with HOME', { HOME: '/home/me' }, { user: USER, system: SYSTEM }],
    [
      '$CONTAINERS_REGISTRIES_CONF as the main file',
      { HOME: '/home/me', CONTAINERS_REGISTRIES_CONF: '/x.conf' },
      { file: '/x.conf', user: USER, system: SYSTEM },
    ],
    ['$REGISTRIES_CONFIG_PATH after it', { REGISTRIES_CONFIG_PATH: '/old.conf' }, { file: '/old.conf', system: SYSTEM }],
    [
      '$CONTAINERS_REGISTRIES_CONF first',
      { CONTAINERS_REGISTRIES_CONF: '/x.conf', REGISTRIES_CONFIG_PATH: '/old.conf' },
      { file: '/x.conf', system: SYSTEM },
    ],
    ['empty variables as unset', { CONTAINERS_REGISTRIES_CONF: '', HOME: '' }, { system: SYSTEM }],
  ])('%s', (_name, env, expected) => {
    expect(registriesConfPaths(env)).toEqual(expected);
  });
});
