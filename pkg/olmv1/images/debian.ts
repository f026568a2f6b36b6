/**
 * The machine's Debian release and the mirror its apt uses, read at run time: the stand-in
 * base image is bootstrapped from the same release and mirror, so it needs no other network
 * access than apt already has.
 */
import { readFile } from 'node:fs/promises';

/** A Debian release and the archive to bootstrap it from. */
export interface DebianSource {
  /** Codename, e.g. `bookworm`. */
  release: string;
  /** Archive URI, e.g. what `URIs:` of the release's stanza names. */
  mirror: string;
}

/** `VERSION_CODENAME` of an os-release file's text; undefined when absent. */
export function osReleaseCodename(text: string): string | undefined {
  const m = /^VERSION_CODENAME=["']?([a-z0-9-]+)["']?\s*$/m.exec(text);
  return m?.[1];
}

/**
 * The first archive URI serving suite `release` (its `main` component): deb822 stanzas
 * (`*.sources`: Types, URIs, Suites, Components) and one-line `deb URI SUITE COMPONENTS...`
 * entries (`*.list`), in the order given. Undefined when none does.
 */
export function aptMirrorFor(release: string, files: readonly string[]): string | undefined {
  for (const text of files) {
    for (const stanza of text.split(/\n\s*\n/)) {
      const fields = new Map<string, string[]>();
      for (const line of stanza.split('\n')) {
        const m = /^([A-Za-z-]+):\s*(.*)$/.exec(line);
        if (m !== null) fields.set((m[1] ?? '').toLowerCase(), (m[2] ?? '').split(/\s+/).filter(Boolean));
      }
      const enabled = (fields.get('enabled') ?? ['yes'])[0] !== 'no';
      if (
        enabled &&
        fields.get('types')?.includes('deb') &&
        fields.get('suites')?.includes(release) &&
        (fields.get('components') ?? []).includes('main')
      ) {
        const uri = fields.get('uris')?.[0];
        if (uri !== undefined) return uri;
      }
    }
    for (const line of text.split('\n')) {
      const m = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)\s+(.*)$/.exec(line.trim());
      if (m !== null && m[2] === release && (m[3] ?? '').split(/\s+/).includes('main')) return m[1];
    }
  }
  return undefined;
}

/** Where the machine's release and apt sources are read from (tests point elsewhere). */
interface DebianPaths {
  osRelease: string;
  aptSources: readonly string[];
}

const DEFAULT_PATHS: DebianPaths = {
  osRelease: '/etc/os-release',
  aptSources: ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list'],
};

/**
 * The machine's Debian release and apt's mirror for it. Throws, saying what is missing, when
 * the machine is not Debian or apt names no archive for the release.
 */
export async function machineDebianSource(paths: DebianPaths = DEFAULT_PATHS): Promise<DebianSource> {
  const osRelease = await readFile(paths.osRelease, 'utf8').catch(() => '');
  const release = osReleaseCodename(osRelease);
  if (release === undefined || !/^ID=["']?debian["']?$/m.test(osRelease)) {
    throw new Error(`the stand-in base image is bootstrapped from the machine's Debian release, but ${paths.osRelease} names no Debian release`);
  }
  const files: string[] = [];
  for (const p of paths.aptSources) files.push(await readFile(p, 'utf8').catch(() => ''));
  const mirror = aptMirrorFor(release, files);
  if (mirror === undefined) throw new Error(`no apt source in ${paths.aptSources.join(', ')} serves ${release} main`);
  return { release, mirror };
}
