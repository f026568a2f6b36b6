import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultImageCacheDir, dockerfileCopySources } from './project-image.ts';

describe('the project image build inputs', () => {
  it("are the paths the repository's Dockerfile copies from the build context", () => {
    const dockerfile = readFileSync(new URL('../../../Dockerfile', import.meta.url), 'utf8');
    expect(dockerfileCopySources(dockerfile)).toEqual(['cmd', 'package-lock.json', 'package.json', 'pkg', 'tsconfig.build.json', 'tsconfig.json']);
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
