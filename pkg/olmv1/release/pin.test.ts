import { describe, expect, it } from 'vitest';
import { manifestImages, unpinnedImages } from './pin.ts';

const digest = `sha256:${'b'.repeat(64)}`;

describe('unpinnedImages', () => {
  it('is empty when every container and init container image is a digest reference', () => {
    const yaml = `kind: Deployment\nspec:\n  template:\n    spec:\n      initContainers:\n      - image: "r.example/a@${digest}"\n      containers:\n      - name: m\n        image: r.example/olmv1@${digest}\n`;
    expect(manifestImages(yaml)).toEqual([
      { image: `r.example/a@${digest}`, pinned: true },
      { image: `r.example/olmv1@${digest}`, pinned: true },
    ]);
    expect(unpinnedImages(yaml)).toEqual([]);
  });

  it('names a tag, a bare name and a short digest as unpinned', () => {
    const yaml = `      - image: olmv1:latest\n        image: olmv1\n        image: 'r.example/x@sha256:abc'\n        image: r.example/y@${digest}\n`;
    expect(unpinnedImages(yaml)).toEqual(['olmv1:latest', 'olmv1', 'r.example/x@sha256:abc']);
  });

  it('refuses a manifest without any image (a wrong render, not a pinned one)', () => {
    expect(() => unpinnedImages('kind: Namespace\n')).toThrow(/no container image/);
  });
});
