/**
 * pkg/olmv1/images: the images the local stack runs, built here without a Docker daemon or an
 * outside registry (the project's by buildah, static Go programs' by our image writer), pushed
 * by digest.
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
  dockerfileCopySources,
  measurePushedImage,
  pushProjectImage,
  type ProjectImage,
  type ProjectImageOptions,
} from './project-image.ts';
