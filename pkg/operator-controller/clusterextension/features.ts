/**
 * The switches the ClusterExtension steps get from operator-controller's `--feature-gates`:
 * rendering's (render/features.ts, which `olmv1 upgrade plan` uses too) and resolution's.
 */
import { renderFeatures, type RenderGates } from '../render/index.ts';
import type { ExtensionFeatures } from './pipeline-state.ts';

/** The gates the steps read: those of rendering and BundleReleaseSupport (resolution). */
interface ExtensionGates extends RenderGates {
  BundleReleaseSupport: boolean;
}

/** The steps' switches under `gates`. */
export function extensionFeatures(gates: ExtensionGates): ExtensionFeatures {
  return { ...renderFeatures(gates), bundleReleaseSupport: gates.BundleReleaseSupport };
}
