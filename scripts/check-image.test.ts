// The Dockerfile's static checks (scripts/check-image.ts) pass on the repository and fire on a
// broken Dockerfile. The full replay of both stages (`node scripts/check-image.ts --replay`)
// installs packages and compiles the project, so it is not part of the unit suite.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseDockerfile, staticProblems } from './check-image.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('Dockerfile', () => {
  it('passes the static checks', () => {
    expect(staticProblems(root)).toEqual([]);
  });

  it('joins continuation lines and drops comments', () => {
    expect(parseDockerfile('# c\nFROM a AS b\nRUN x \\\n  && y\n')).toEqual([
      { op: 'FROM', args: 'a AS b' },
      { op: 'RUN', args: 'x    && y' },
    ]);
  });

  it('reports a wrong base, a missing COPY source, a root user and a Deployment command nothing emits', () => {
    const dir = mkdtempSync(join(tmpdir(), 'check-image-test-'));
    try {
      for (const f of ['.dockerignore', 'config/manager', 'cmd/catalogd/main.ts', 'cmd/operator-controller/main.ts'])
        cpSync(join(root, f), join(dir, f), { recursive: true });
      writeFileSync(join(dir, 'Dockerfile'), 'FROM node:22\nCOPY missing.json ./\nFROM node:24-slim\nCOPY node_modules ./\nUSER 0\n');
      writeFileSync(join(dir, 'node_modules'), '');
      writeFileSync(
        join(dir, 'config/manager/extra.yaml'),
        'apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n        - command: [node, dist/cmd/nothing/main.js]\n',
      );
      expect(staticProblems(dir)).toEqual([
        'FROM node:22: want node:24-slim',
        'COPY missing.json: no such file in the build context',
        'COPY node_modules: excluded by .dockerignore',
        'final stage USER 0: want a numeric non-root uid',
        'Deployment command dist/cmd/nothing/main.js: no TypeScript source emits it',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
