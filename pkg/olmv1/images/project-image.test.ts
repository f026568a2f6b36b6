import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  defaultImageCacheDir,
  dependencyLayers,
  dockerfileCopySources,
  projectBuildArgs,
  SOURCE_DATE_EPOCH,
  staleProjectTags,
} from './project-image.ts';

describe('the project image build inputs', () => {
  it("are the paths the repository's Dockerfile copies from the build context", () => {
    const dockerfile = readFileSync(new URL('../../../Dockerfile', import.meta.url), 'utf8');
    expect(dockerfileCopySources(dockerfile)).toEqual([
      'cmd',
      'package-lock.json',
      'package.json',
      'pkg',
      'scripts/build-bundles.ts',
      'scripts/build-console.ts',
      'tsconfig.build.json',
      'tsconfig.json',
    ]);
  });

  it('skip copies from a stage, flags and continuation lines', () => {
    const dockerfile = 'FROM a AS b\nCOPY --chown=1:1 ./x y/ \\\n  z/\nCOPY --from=b /src/dist ./dist\ncopy w .\n';
    expect(dockerfileCopySources(dockerfile)).toEqual(['w', 'x', 'y']);
  });

  it('are cached under the XDG cache directory', () => {
    expect(defaultImageCacheDir({ XDG_CACHE_HOME: '/c', HOME: '/h' })).toBe('/c/olmv1/images');
    expect(defaultImageCacheDir({ HOME: '/h' })).toBe('/h/.cache/olmv1/images');
  });
});

describe('the reproducible project image build', () => {
  it('passes buildah one fixed time for what it writes and for the Dockerfile steps, with the layer cache on', () => {
    const args = projectBuildArgs({ context: '/ctx', tag: 'localhost/olmv1/olmv1:tree-k', treeKey: 'k' });
    expect(SOURCE_DATE_EPOCH).toBe(0);
    expect(args.slice(args.indexOf('--timestamp'), args.indexOf('--timestamp') + 2)).toEqual(['--timestamp', '0']);
    expect(args.slice(args.indexOf('--build-arg'), args.indexOf('--build-arg') + 2)).toEqual(['--build-arg', 'SOURCE_DATE_EPOCH=0']);
    expect(args).toContain('--layers');
    expect(args).toContain('--identity-label=false');
    expect(args[0]).toBe('bud');
    expect(args.at(-1)).toBe('/ctx');
    expect(args.slice(-3, -1)).toEqual(['--tag', 'localhost/olmv1/olmv1:tree-k']);
  });

  it('declares SOURCE_DATE_EPOCH in every stage of the Dockerfile, for the tools its steps run', () => {
    const dockerfile = readFileSync(new URL('../../../Dockerfile', import.meta.url), 'utf8');
    const stages = dockerfile.split(/^FROM /m).slice(1);
    expect(stages.length).toBeGreaterThan(1);
    for (const stage of stages) expect(stage).toMatch(/^ARG SOURCE_DATE_EPOCH$/m);
  });

  it('prunes tags by when they were last used, not by their (fixed) creation time', () => {
    const now = Date.UTC(2026, 10, 28, 12);
    const tag = (k: string) => `localhost/olmv1/olmv1:tree-${k}`;
    const deps = (k: string) => `localhost/olmv1/olmv1-deps:${k}`;
    const images = [
      { id: '1', names: [tag('new')], created: 0 },
      { id: '2', names: [tag('recent')], created: 0 },
      { id: '3', names: [tag('old')], created: 0 },
      { id: '4', names: [tag('unrecorded-recent')], created: (now - 60_000) / 1000 },
      { id: '5', names: [tag('unrecorded-old')], created: 0 },
      { id: '6', names: ['localhost/olmv1/stand-in:x'], created: 0 },
      { id: '7', names: null, created: 0 },
      { id: '8', names: [deps('kept')], created: 0 },
      { id: '9', names: [deps('used-recently')], created: 0 },
      { id: '10', names: [deps('old')], created: 0 },
    ];
    const usedAt = {
      [tag('recent')]: now - 5 * 60_000,
      [tag('old')]: now - 60 * 60_000,
      [deps('kept')]: now - 90 * 60_000,
      [deps('used-recently')]: now - 60_000,
      [deps('old')]: now - 90 * 60_000,
    };
    expect(staleProjectTags(images, [tag('new'), deps('kept')], usedAt, now)).toEqual([tag('old'), tag('unrecorded-old'), deps('old')]);
  });

  it("tags the layers of the Dockerfile's npm ci steps, run or taken from the cache", () => {
    const out = [
      '[1/2] STEP 4/10: COPY package.json package-lock.json ./',
      '--> Using cache 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
      '--> 0123456789a',
      '[1/2] STEP 5/10: RUN npm ci --ignore-scripts',
      'added 612 packages in 3m',
      '--> 1111111111a',
      '[1/2] STEP 6/10: RUN node node_modules/typescript/bin/tsc -p tsconfig.build.json',
      '--> 2222222222a',
      '[2/2] STEP 5/9: RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force',
      '--> Using cache 3333333333a0000000000000000000000000000000000000000000000000000',
      '--> 3333333333a',
      '[2/2] STEP 6/9: RUN npm cinnamon',
      '--> 4444444444a',
      '[2/2] COMMIT localhost/olmv1/olmv1:tree-k',
      '--> 5555555555a',
    ].join('\n');
    expect(dependencyLayers(out)).toEqual(['1111111111a', '3333333333a']);
  });
});
