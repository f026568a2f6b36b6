import { describe, expect, it } from 'vitest';
import {
  credentialsFor,
  dockerConfigFromSecret,
  mergeDockerConfigs,
  normalizeAuthKey,
  parseDockerConfigJson,
  parseDockercfg,
} from './docker-config.ts';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const ref = (domain: string, path = 'ns/img'): { domain: string; path: string } => ({ domain, path });

describe('parseDockerConfigJson', () => {
  it('reads auth and username/password entries and drops empty ones', () => {
    const config = parseDockerConfigJson(
      JSON.stringify({
        auths: {
          'quay.io': { auth: b64('robot:s3cr:et'), email: 'x@y' },
          'registry.example:5000': { username: 'u', password: 'p' },
          'empty.example': { email: 'nobody@example' },
        },
      }),
    );
    expect(config.auths).toEqual({
      'quay.io': { username: 'robot', password: 's3cr:et' },
      'registry.example:5000': { username: 'u', password: 'p' },
    });
  });

  it('normalises scheme-prefixed keys and Docker Hub aliases', () => {
    const config = parseDockerConfigJson(
      JSON.stringify({
        auths: {
          'https://index.docker.io/v1/': { auth: b64('hub:1') },
          'http://insecure.example:5000/v2/': { auth: b64('ins:2') },
          'quay.io/team': { auth: b64('team:3') },
        },
      }),
    );
    expect(credentialsFor(config, ref('docker.io', 'library/busybox'))).toEqual({ username: 'hub', password: '1' });
    expect(credentialsFor(config, ref('registry-1.docker.io'))).toEqual({ username: 'hub', password: '1' });
    expect(credentialsFor(config, ref('insecure.example:5000'))).toEqual({ username: 'ins', password: '2' });
    expect(credentialsFor(config, ref('quay.io', 'team/app'))).toEqual({ username: 'team', password: '3' });
    expect(credentialsFor(config, ref('quay.io', 'other/app'))).toBeUndefined();
    expect(credentialsFor(config, ref('insecure.example'))).toBeUndefined();
  });

  it('prefers the most specific namespace and lets a plain key beat a prefixed one', () => {
    const config = parseDockerConfigJson(
      JSON.stringify({
        auths: {
          'quay.io': { auth: b64('host:h') },
          'quay.io/team/app': { auth: b64('repo:r') },
          'https://quay.io': { auth: b64('prefixed:p') },
        },
      }),
    );
    expect(credentialsFor(config, ref('quay.io', 'team/app'))?.username).toBe('repo');
    expect(credentialsFor(config, ref('quay.io', 'team/other'))?.username).toBe('host');
  });

  it.each([
    ['not json', /error parsing \.dockerconfigjson: /],
    ['{"auths": 3}', /error parsing \.dockerconfigjson: auths: /],
    ['{}', /error parsing \.dockerconfigjson: auths: /],
    [
      JSON.stringify({ auths: { 'q.io': { auth: b64('nocolon') } } }),
      /invalid "auth" for registry "q\.io" in \.dockerconfigjson: expected base64 of "username:password"/,
    ],
  ])('rejects %j clearly', (text, message) => {
    expect(() => parseDockerConfigJson(text)).toThrow(message);
  });
});

describe('parseDockercfg', () => {
  it('reads the legacy format, keeping only the host of URL keys', () => {
    const config = parseDockercfg(JSON.stringify({ 'https://quay.io/v1/': { auth: b64('old:pw') } }));
    expect(config.auths).toEqual({ 'quay.io': { username: 'old', password: 'pw' } });
  });
});

describe('dockerConfigFromSecret', () => {
  it('decodes .dockerconfigjson, falls back to .dockercfg, ignores other secrets', () => {
    const json = dockerConfigFromSecret({
      name: 'pull',
      data: { '.dockerconfigjson': b64(JSON.stringify({ auths: { 'a.io': { auth: b64('a:1') } } })) },
    });
    expect(json?.auths['a.io']).toEqual({ username: 'a', password: '1' });
    const cfg = dockerConfigFromSecret({ data: { '.dockercfg': b64(JSON.stringify({ 'b.io': { auth: b64('b:2') } })) } });
    expect(cfg?.auths['b.io']).toEqual({ username: 'b', password: '2' });
    expect(dockerConfigFromSecret({ data: { token: b64('x') } })).toBeUndefined();
    expect(() => dockerConfigFromSecret({ name: 'broken', data: { '.dockerconfigjson': b64('{') } })).toThrow(
      /secret "broken" key \.dockerconfigjson/,
    );
  });
});

describe('mergeDockerConfigs', () => {
  it('lets later configs override earlier ones per registry', () => {
    const first = parseDockerConfigJson(JSON.stringify({ auths: { 'a.io': { auth: b64('first:1') }, 'b.io': { auth: b64('b:1') } } }));
    const second = parseDockerConfigJson(JSON.stringify({ auths: { 'a.io': { auth: b64('second:2') } } }));
    const merged = mergeDockerConfigs([first, second]);
    expect(credentialsFor(merged, ref('a.io'))?.username).toBe('second');
    expect(credentialsFor(merged, ref('b.io'))?.username).toBe('b');
  });
});

describe('normalizeAuthKey', () => {
  it.each([
    ['docker.io', false, 'index.docker.io'],
    ['https://registry-1.docker.io/v2/', false, 'index.docker.io'],
    ['quay.io/ns/', false, 'quay.io/ns'],
    ['quay.io/ns', true, 'quay.io'],
  ])('%j (legacy %j) -> %j', (key, legacy, want) => {
    expect(normalizeAuthKey(key, legacy)).toBe(want);
  });
});
