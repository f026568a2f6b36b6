/**
 * pkg/olmv1/images: the images the local stack runs, built on this machine without a Docker
 * daemon or any outside registry: the project's image (the Dockerfile, built by buildah over a
 * stand-in `node:24-slim` made from Debian packages) and the example operator's image (a
 * static Go program packed by our own image writer). Both are pushed by digest.
 */
export { pushCertManagerImages, type CertManagerImages } from './cert-manager-images.ts';
export { buildExampleOperatorBinary, exampleOperatorImage, pushExampleOperatorImages } from './example-operator-image.ts';
export { pushServiceCaStandInImage } from './service-ca-stand-in-image.ts';
export { checkProjectImage } from './project-image-check.ts';
export {
  buildProjectImage,
  defaultImageCacheDir,
  measurePushedImage,
  pushProjectImage,
  type ProjectImage,
  type ProjectImageOptions,
} from './project-image.ts';
