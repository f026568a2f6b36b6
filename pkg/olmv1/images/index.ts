/**
 * pkg/olmv1/images: the images the local stack runs, built on this machine without a Docker
 * daemon or any outside registry: the project's image (the Dockerfile, built by buildah over a
 * stand-in `node:24-slim` made from Debian packages) and the images of static Go programs (the
 * example operator, the service-CA stand-in, cert-manager), packed by our own image writer.
 * All are pushed by digest.
 */
export {
  buildExampleOperatorBinary,
  exampleOperatorImage,
  pushCertManagerImages,
  pushExampleOperatorImages,
  pushServiceCaStandInImage,
  type CertManagerImages,
} from './static-images.ts';
export { checkProjectImage } from './project-image-check.ts';
export {
  buildProjectImage,
  defaultImageCacheDir,
  measurePushedImage,
  pushProjectImage,
  type ProjectImage,
  type ProjectImageOptions,
} from './project-image.ts';
