import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { aptMirrorFor, machineDebianSource, osReleaseCodename } from './debian.ts';

// Addresses from TEST-NET-1 (RFC 5737): no real mirror is named.
const DEB822 = `Types: deb
URIs: http://192.0.2.1/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://192.0.2.2/debian-security
Suites: bookworm-security
Components: main
`;

describe('the machine Debian source', () => {
  it('reads the codename of os-release', () => {
    expect(osReleaseCodename('ID=debian\nVERSION_CODENAME=bookworm\n')).toBe('bookworm');
    expect(osReleaseCodename('VERSION_CODENAME="trixie"\n')).toBe('trixie');
    expect(osReleaseCodename('ID=debian\n')).toBeUndefined();
  });

  it.each([
    ['a deb822 stanza', [DEB822], 'bookworm', 'http://192.0.2.1/debian'],
    ['a later stanza for the security suite', [DEB822], 'bookworm-security', 'http://192.0.2.2/debian-security'],
    ['a disabled stanza is skipped', [`Enabled: no\n${DEB822}`], 'bookworm', undefined],
    ['a one-line entry with options', ['deb [arch=amd64] http://192.0.2.3/debian bookworm main contrib\n'], 'bookworm', 'http://192.0.2.3/debian'],
    ['deb-src only', ['deb-src http://192.0.2.3/debian bookworm main\n'], 'bookworm', undefined],
    ['no main component', ['deb http://192.0.2.3/debian bookworm contrib\n'], 'bookworm', undefined],
    ['the first file that has one', ['', 'deb http://192.0.2.4/debian bookworm main\n'], 'bookworm', 'http://192.0.2.4/debian'],
  ])('finds the mirror: %s', (_, files, release, want) => {
    expect(aptMirrorFor(release, files)).toBe(want);
  });

  it('reads both from files, and says what is missing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'olmv1-debian-'));
    try {
      await writeFile(join(dir, 'os-release'), 'ID=debian\nVERSION_CODENAME=bookworm\n');
      await writeFile(join(dir, 'debian.sources'), DEB822);
      const paths = { osRelease: join(dir, 'os-release'), aptSources: [join(dir, 'debian.sources'), join(dir, 'absent.list')] };
      expect(await machineDebianSource(paths)).toEqual({ release: 'bookworm', mirror: 'http://192.0.2.1/debian' });
      await writeFile(join(dir, 'os-release'), 'ID=alpine\n');
      await expect(machineDebianSource(paths)).rejects.toThrow(/names no Debian release/);
      await writeFile(join(dir, 'os-release'), 'ID=debian\nVERSION_CODENAME=trixie\n');
      await expect(machineDebianSource(paths)).rejects.toThrow(/serves trixie main/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
