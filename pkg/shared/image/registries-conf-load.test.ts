import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadRegistriesConf, registriesConfSources, type RegistriesConfPaths } from './registries-conf-load.ts';

let dir: string;
let paths: RegistriesConfPaths;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'olmv1-registries-conf-'));
  paths = {
    system: { file: join(dir, 'etc/registries.conf'), dir: join(dir, 'etc/registries.conf.d') },
    user: { file: join(dir, 'home/registries.conf'), dir: join(dir, 'home/registries.conf.d') },
  };
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function write(rel: string, text: string): Promise<string> {
  const path = join(dir, rel);
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, text);
  return path;
}

const table = (location: string, extra = ''): string => `[[registry]]\nlocation = "${location}"\n${extra}`;

describe('loadRegistriesConf', () => {
  it('is empty when nothing exists at the default locations', async () => {
    expect(await loadRegistriesConf(paths)).toEqual({ registries: [], unqualifiedSearchRegistries: [], files: [] });
  });

  it('reads the system file, then the system and user drop-ins, each in byte order, .conf files only', async () => {
    await write('etc/registries.conf', table('q.io', 'insecure = true'));
    await write('etc/registries.conf.d/20-b.conf', table('q.io', 'blocked = true'));
    await write('etc/registries.conf.d/10-a.conf', table('a.io'));
    await write('etc/registries.conf.d/Z.conf', table('z.io'));
    await write('etc/registries.conf.d/notes.txt', 'not toml');
    await write('etc/registries.conf.d/sub.conf/ignored.conf', 'not toml');
    await write('home/registries.conf.d/00-user.conf', table('u.io'));
    // A ConfigMap volume: the files are links into a hidden directory that is not read itself.
    await write('etc/registries.conf.d/..data/30-c.conf', table('c.io'));
    await symlink('..data/30-c.conf', join(dir, 'etc/registries.conf.d/30-c.conf'));
    const conf = await loadRegistriesConf(paths);
    expect(conf.files.map((f) => f.slice(dir.length))).toEqual([
      '/etc/registries.conf',
      '/etc/registries.conf.d/10-a.conf',
      '/etc/registries.conf.d/20-b.conf',
      '/etc/registries.conf.d/30-c.conf',
      '/etc/registries.conf.d/Z.conf',
      '/home/registries.conf.d/00-user.conf',
    ]);
    expect(conf.registries.map((r) => [r.prefix, r.insecure, r.blocked])).toEqual([
      ['a.io', false, false],
      ['c.io', false, false],
      ['q.io', false, true],
      ['u.io', false, false],
      ['z.io', false, false],
    ]);
  });

  it('uses the user file instead of the system file and directory when it exists', async () => {
    await write('etc/registries.conf', table('sys.io'));
    await write('etc/registries.conf.d/a.conf', table('sysdrop.io'));
    await write('home/registries.conf', table('user.io'));
    await write('home/registries.conf.d/a.conf', table('userdrop.io'));
    expect(await registriesConfSources(paths)).toEqual({ file: paths.user?.file, required: false, dirs: [paths.user?.dir] });
    expect((await loadRegistriesConf(paths)).registries.map((r) => r.prefix)).toEqual(['user.io', 'userdrop.io']);
  });

  it('uses an explicit file with both drop-in directories, and requires it', async () => {
    const explicit = await write('explicit.conf', table('x.io'));
    await write('home/registries.conf', table('user.io'));
    await write('etc/registries.conf.d/a.conf', table('sysdrop.io'));
    expect((await loadRegistriesConf({ ...paths, file: explicit })).registries.map((r) => r.prefix)).toEqual(['sysdrop.io', 'x.io']);
    const missing = join(dir, 'missing.conf');
    await expect(loadRegistriesConf({ ...paths, file: missing })).rejects.toThrow(
      `loading registries configuration ${JSON.stringify(missing)}: ENOENT: no such file or directory, open '${missing}'`,
    );
  });

  it('names the file and line of a problem', async () => {
    await write('etc/registries.conf', table('q.io'));
    const bad = await write(
      'etc/registries.conf.d/50-bad.conf',
      '[[registry]]\nlocation = "q.io"\n[[registry.mirror]]\nlocation = "m"\npull-from-mirror = "never"\n',
    );
    await expect(loadRegistriesConf(paths)).rejects.toThrow(
      `loading drop-in registries configuration ${JSON.stringify(bad)}: line 3: unsupported pull-from-mirror value "never" for mirror "m"`,
    );
    const main = await write('etc/registries.conf', 'x = \n');
    await expect(loadRegistriesConf(paths)).rejects.toThrow(`loading registries configuration ${JSON.stringify(main)}: line 1: invalid value`);
  });

  it('ignores a drop-in path that is a file, as upstream', async () => {
    await write('etc/registries.conf.d', table('q.io'));
    expect((await loadRegistriesConf(paths)).files).toEqual([]);
  });
});
