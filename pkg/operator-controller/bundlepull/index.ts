/**
 * pkg/operator-controller/bundlepull: getting a resolved bundle's content: pulling and unpacking
 * the bundle image in the background (one pull per image, prioritised, its status read by the
 * pull step), the unpacked bundles kept by digest, and the memory budget bundles are admitted
 * under (spilled to disk past it).
 */
export { BundleBudget, type BundleLease } from './budget.ts';
export { type BundlePullScheduler, BundlePulls, PULL_END_PRIORITY, type PullStatus } from './pulls.ts';
export { type BundleSource, type BundleSpill, type FetchedBundle, type MemoryPort, bundleProperties, cachedBundle, fetchBundle } from './source.ts';
