/**
 * pkg/olmv1/images: the images the local stack runs, built on this machine without a Docker
 * daemon or any outside registry: the example operator's image (a static Go program packed by
 * our own image writer), pushed by digest.
 */
export { buildExampleOperatorBinary, pushExampleOperatorImages } from './example-operator-image.ts';
