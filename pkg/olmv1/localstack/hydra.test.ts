import { describe, expect, it } from 'vitest';
import { withoutNestedClientReplace } from './hydra.ts';

describe("Hydra's go.mod for a build inside its source tree", () => {
  const goMod = [
    'module github.com/ory/hydra/v2',
    '',
    'replace github.com/ory/hydra-client-go/v2 => ./internal/httpclient',
    '',
    'replace github.com/gobuffalo/pop/v6 => github.com/ory/pop/v6 v6.2.1-0.20241121111754-e5dfc0f3344b',
    '',
  ].join('\n');

  it('drops the replace of its client by the nested module and keeps the others', () => {
    const out = withoutNestedClientReplace(goMod);
    expect(out).not.toContain('./internal/httpclient');
    expect(out).toContain('replace github.com/gobuffalo/pop/v6 => github.com/ory/pop/v6');
  });

  it('throws when there is no such replace (another Hydra release needs another recipe)', () => {
    expect(() => withoutNestedClientReplace('module github.com/ory/hydra/v2\n')).toThrow(/no replace of hydra-client-go/);
  });
});
