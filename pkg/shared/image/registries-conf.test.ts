import { describe, expect, it } from 'vitest';
import { parseImageReference } from './reference.ts';
import { parseRegistriesConfFile, type RegistriesConfFile } from './registries-conf-file.ts';
import { EMPTY_REGISTRIES_CONF, findRegistry, mergeRegistriesConf, pullSources, type RegistriesConf } from './registries-conf.ts';

const DIGEST = `sha256:${'a'.repeat(64)}`;

function file(text: string, name = '/etc/containers/registries.conf', dropIn = false): RegistriesConfFile {
  const r = parseRegistriesConfFile(text, name, dropIn);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

function conf(text: string): RegistriesConf {
  return mergeRegistriesConf([file(text)]);
}

/** The sources of `ref`, one string each: `<ref>[ insecure][ mirror][ blocked by <prefix> in <origin>]`. */
function sources(c: RegistriesConf, ref: string): string[] {
  const r = pullSources(parseImageReference(ref), c);
  if (!r.ok) throw new Error(r.error);
  return r.value.map((s) =>
    [
      `${s.ref.name}${s.ref.tag === undefined ? '' : `:${s.ref.tag}`}${s.ref.digest === undefined ? '' : '@digest'}`,
      s.insecure ? 'insecure' : '',
      s.mirror ? 'mirror' : '',
      s.blocked === undefined ? '' : `blocked by ${s.blocked.prefix} in ${s.blocked.origin}`,
    ]
      .filter((x) => x !== '')
      .join(' '),
  );
}

const MIRRORED = `
unqualified-search-registries = ["example.com"]

[[registry]]
prefix = "example.com/foo"
location = "internal.example.net/bar"

[[registry.mirror]]
location = "mirror-0.local/mirror-for-foo"

[[registry.mirror]]
location = "mirror-1.local:5000/mirrors/foo"
insecure = true
`;

describe('pullSources', () => {
  it.each([
    ['no table: the name itself', '', 'quay.io/ns/img:1', ['quay.io/ns/img:1']],
    [
      'mirrors in order, then the rewritten location',
      MIRRORED,
      'example.com/foo/img:latest',
      [
        'mirror-0.local/mirror-for-foo/img:latest mirror',
        'mirror-1.local:5000/mirrors/foo/img:latest insecure mirror',
        'internal.example.net/bar/img:latest',
      ],
    ],
    ['a prefix matches up to a "/" only', MIRRORED, 'example.com/foobar/img:1', ['example.com/foobar/img:1']],
    [
      'the longest prefix wins',
      '[[registry]]\nlocation = "quay.io"\ninsecure = true\n[[registry]]\nprefix = "quay.io/team"\nlocation = "mirror.local/team"',
      'quay.io/team/app:1',
      ['mirror.local/team/app:1'],
    ],
    [
      'a shorter prefix covers the rest',
      '[[registry]]\nlocation = "quay.io"\ninsecure = true\n[[registry]]\nprefix = "quay.io/team"\nlocation = "mirror.local/team"',
      'quay.io/other/app:1',
      ['quay.io/other/app:1 insecure'],
    ],
    [
      'a host prefix also covers its ports (upstream)',
      '[[registry]]\nlocation = "example.com"\ninsecure = true',
      'example.com:5000/x:1',
      ['example.com:5000/x:1 insecure'],
    ],
    [
      'a wildcard matches any depth of subdomain, without rewriting',
      '[[registry]]\nprefix = "*.example.com"\ninsecure = true\n[[registry.mirror]]\nlocation = "mirror.local/all"',
      'a.b.example.com/ns/x:1',
      ['mirror.local/all/ns/x:1 mirror', 'a.b.example.com/ns/x:1 insecure'],
    ],
    ['a wildcard does not match the domain itself', '[[registry]]\nprefix = "*.example.com"\nblocked = true', 'example.com/x:1', ['example.com/x:1']],
    [
      'a wildcard does not match inside a longer host',
      '[[registry]]\nprefix = "*.example.com"\nblocked = true',
      'a.example.com.evil.io/x:1',
      ['a.example.com.evil.io/x:1'],
    ],
    [
      'a wildcard covers ports and digests',
      '[[registry]]\nprefix = "*.example.com"\nblocked = true',
      `a.example.com:443/x@${DIGEST}`,
      ['a.example.com:443/x@digest blocked by *.example.com in /etc/containers/registries.conf:1'],
    ],
    [
      'a blocked registry is still pulled from its mirrors',
      '# comment\n[[registry]]\nlocation = "quay.io"\nblocked = true\n[[registry.mirror]]\nlocation = "mirror.local/quay"',
      'quay.io/ns/x:1',
      ['mirror.local/quay/ns/x:1 mirror', 'quay.io/ns/x:1 blocked by quay.io in /etc/containers/registries.conf:2'],
    ],
    [
      'a mirror inside a blocked namespace is blocked too',
      '[[registry]]\nlocation = "quay.io"\n[[registry.mirror]]\nlocation = "bad.local/quay"\n[[registry]]\nlocation = "bad.local"\nblocked = true',
      'quay.io/x:1',
      ['bad.local/quay/x:1 mirror blocked by bad.local in /etc/containers/registries.conf:5', 'quay.io/x:1'],
    ],
  ])('%s', (_name, text, ref, expected) => {
    expect(sources(conf(text), ref)).toEqual(expected);
  });

  const modes = `
[[registry]]
location = "quay.io"
[[registry.mirror]]
location = "digests.local"
pull-from-mirror = "digest-only"
[[registry.mirror]]
location = "tags.local"
pull-from-mirror = "tag-only"
[[registry.mirror]]
location = "all.local"
pull-from-mirror = "all"
[[registry]]
location = "registry.io"
mirror-by-digest-only = true
[[registry.mirror]]
location = "m.local"
`;
  it.each([
    ['pull-from-mirror for a tag', 'quay.io/x:1', ['tags.local/x:1 mirror', 'all.local/x:1 mirror', 'quay.io/x:1']],
    ['pull-from-mirror for a digest', `quay.io/x@${DIGEST}`, ['digests.local/x@digest mirror', 'all.local/x@digest mirror', 'quay.io/x@digest']],
    ['mirror-by-digest-only for a tag', 'registry.io/x:1', ['registry.io/x:1']],
    ['mirror-by-digest-only for a digest', `registry.io/x@${DIGEST}`, ['m.local/x@digest mirror', 'registry.io/x@digest']],
  ])('%s', (_name, ref, expected) => {
    expect(sources(conf(modes), ref)).toEqual(expected);
  });

  it('fails when a rewrite does not give a valid reference', () => {
    const c = conf('[[registry]]\nprefix = "quay.io/ns"\nlocation = "mirror.local/Upper"');
    expect(pullSources(parseImageReference('quay.io/ns/x:1'), c)).toEqual({
      ok: false,
      error:
        'rewriting reference: error parsing image reference "mirror.local/Upper/x:1": invalid reference format: repository name must be lowercase',
    });
  });

  it('finds nothing in the empty configuration', () => {
    expect(findRegistry(EMPTY_REGISTRIES_CONF, 'quay.io/x')).toBeUndefined();
    expect(sources(EMPTY_REGISTRIES_CONF, 'quay.io/x:1')).toEqual(['quay.io/x:1']);
  });
});

describe('drop-in files', () => {
  const main = file('unqualified-search-registries = ["a.io"]\n[[registry]]\nlocation = "quay.io"\n[[registry.mirror]]\nlocation = "main.local"');

  it('replace a table with the same prefix whole, add others, and replace the search list', () => {
    const merged = mergeRegistriesConf([
      main,
      file('[[registry]]\nlocation = "quay.io"\n[[registry.mirror]]\nlocation = "first.local"', '/d/10-a.conf', true),
      file('[[registry]]\nlocation = "quay.io"\ninsecure = true\n[[registry]]\nlocation = "other.io"\nblocked = true', '/d/20-b.conf', true),
      file('unqualified-search-registries = ["b.io"]', '/d/30-c.conf', true),
    ]);
    expect(sources(merged, 'quay.io/x:1')).toEqual(['quay.io/x:1 insecure']);
    expect(sources(merged, 'other.io/x:1')).toEqual(['other.io/x:1 blocked by other.io in /d/20-b.conf:4']);
    expect(merged.unqualifiedSearchRegistries).toEqual(['b.io']);
    expect(merged.files).toEqual(['/etc/containers/registries.conf', '/d/10-a.conf', '/d/20-b.conf', '/d/30-c.conf']);
  });

  it('keep what they do not set', () => {
    const merged = mergeRegistriesConf([main, file('[[registry]]\nlocation = "other.io"', '/d/x.conf', true)]);
    expect(sources(merged, 'quay.io/x:1')).toEqual(['main.local/x:1 mirror', 'quay.io/x:1']);
    expect(merged.unqualifiedSearchRegistries).toEqual(['a.io']);
  });
});

describe('parseRegistriesConfFile', () => {
  it('reads the deprecated version 1 lists in a main file', () => {
    const c = conf(
      '[registries.search]\nregistries = ["a.io"]\n[registries.insecure]\nregistries = ["b.io"]\n[registries.block]\nregistries = ["c.io/"]',
    );
    expect(sources(c, 'b.io/x:1')).toEqual(['b.io/x:1 insecure']);
    expect(sources(c, 'c.io/x:1')).toEqual(['c.io/x:1 blocked by c.io in /etc/containers/registries.conf:1']);
    expect(c.unqualifiedSearchRegistries).toEqual(['a.io']);
  });

  it('keeps the first of two tables with one prefix, and ignores keys it does not know', () => {
    const c = conf(
      'credential-helpers = ["pass"]\n[[registry]]\nlocation = "q.io"\nblocked = true\nfuture = 1\n[[registry]]\nprefix = "q.io"\nlocation = "q.io"\nblocked = true\ninsecure = false',
    );
    expect(c.registries).toHaveLength(1);
    expect(c.registries[0]?.origin).toBe('/etc/containers/registries.conf:2');
  });

  it('accepts mirrors written as inline tables and trims trailing slashes', () => {
    const c = conf('[[registry]]\nlocation = "quay.io/"\nmirror = [{ location = "m.local/q/" }]');
    expect(sources(c, 'quay.io/x:1')).toEqual(['m.local/q/x:1 mirror', 'quay.io/x:1']);
  });

  it.each([
    ['a syntax error', 'a = 1\n[[registry]\n', false, 'line 2: expected end of table array declaration'],
    ['a wrong type', '[[registry]]\nlocation = "q.io"\ninsecure = "yes"', false, 'line 1: insecure: expected a boolean, found a string'],
    ['neither location nor prefix', '\n[[registry]]\ninsecure = true', false, 'line 2: invalid condition: both location and prefix are unset'],
    [
      'a prefix without a location',
      '[[registry]]\nprefix = "q.io"',
      false,
      'line 1: invalid condition: location is unset and prefix is not in the format: *.example.com',
    ],
    [
      'a wildcard with a path',
      '[[registry]]\nprefix = "*.example.com/foo"',
      false,
      'line 1: Wildcarded prefix should be in the format: *.example.com. Current prefix "*.example.com/foo" is incorrectly formatted',
    ],
    ['a URL', '[[registry]]\nlocation = "https://q.io"', false, "line 1: invalid location 'https://q.io': URI schemes are not supported"],
    [
      'pull-from-mirror on a registry',
      '[[registry]]\nlocation = "q.io"\npull-from-mirror = "all"',
      false,
      'line 1: pull-from-mirror must not be set for a non-mirror registry "q.io"',
    ],
    [
      'a mirror without a location',
      '[[registry]]\nlocation = "q.io"\n[[registry.mirror]]\ninsecure = true',
      false,
      'line 3: invalid condition: mirror location is unset',
    ],
    [
      'both digest-only settings',
      '[[registry]]\nlocation = "q.io"\nmirror-by-digest-only = true\n[[registry.mirror]]\nlocation = "m"\npull-from-mirror = "tag-only"',
      false,
      'line 4: cannot set mirror usage mirror-by-digest-only for the registry ("q.io") and pull-from-mirror for per-mirror ("m") at the same time',
    ],
    [
      'an unknown pull-from-mirror',
      '[[registry]]\nlocation = "q.io"\n[[registry.mirror]]\nlocation = "m"\npull-from-mirror = "some"',
      false,
      'line 3: unsupported pull-from-mirror value "some" for mirror "m"',
    ],
    [
      'conflicting settings for one location',
      '[[registry]]\nprefix = "a.io"\nlocation = "q.io"\n[[registry]]\nprefix = "b.io"\nlocation = "q.io"\ninsecure = true',
      false,
      "line 4: registry 'q.io' is defined multiple times with conflicting 'insecure' setting",
    ],
    [
      'a search entry that is no domain',
      'unqualified-search-registries = ["q.io/ns"]',
      false,
      'Invalid unqualified-search-registries entry "q.io/ns"',
    ],
    ['an unknown short-name mode', 'short-name-mode = "loose"', false, 'invalid short-name mode: "loose"'],
    ['version 1 in a drop-in', '\n[registries.block]\nregistries = ["q.io"]', true, 'line 2: registry must be in v2 format but is in v1'],
    [
      'version 1 and 2 together',
      '[registries.block]\nregistries = ["q.io"]\n[[registry]]\nlocation = "x.io"',
      false,
      'line 1: mixing sysregistry v1/v2 is not supported',
    ],
  ])('refuses %s', (_name, text, dropIn, message) => {
    expect(parseRegistriesConfFile(text, '/f.conf', dropIn)).toEqual({ ok: false, error: message });
  });
});
