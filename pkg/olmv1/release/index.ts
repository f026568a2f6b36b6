/**
 * pkg/olmv1/release: the artifacts of a release (`npm run release`, docs/release.md): the
 * manifest pinned by digest, install.sh, SHA256SUMS and the SBOM (pure renderers), composed with
 * the build, signature and push by makeRelease, its tools injected.
 */
export { verifyChecksums } from './checksums.ts';
export { crdReplacementVerdict, crdRequirements, manifestCrdProvisions } from './crd-check.ts';
export { renderInstallScript } from './install-script.ts';
export { unpinnedImages } from './pin.ts';
export { makeRelease, RELEASE_FILES, releaseInputProblem } from './release.ts';
export { parseDpkgStatus, type DebianPackage } from './sbom.ts';
