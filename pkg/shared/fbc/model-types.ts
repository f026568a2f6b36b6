/** operator-registry's `model` package as data, built by model.ts and checked by model-validate.ts. */
import type { Release, SemVersion } from '../semver/index.ts';
import type { ParsedProperties } from './properties.ts';
import type { Property } from './types.ts';

/** A deprecation attached to a model object. */
export interface ModelDeprecation {
  message: string;
}

/** `model.Package` */
export interface ModelPackage {
  name: string;
  defaultChannel: ModelChannel | undefined;
  channels: Map<string, ModelChannel>;
  deprecation: ModelDeprecation | undefined;
}

/** `model.Channel` */
export interface ModelChannel {
  pkg: ModelPackage;
  name: string;
  bundles: Map<string, ModelBundle>;
  deprecation: ModelDeprecation | undefined;
}

/** `model.Bundle`: a channel entry, with the `olm.bundle` data attached when there is one. */
export interface ModelBundle {
  pkg: ModelPackage;
  channel: ModelChannel;
  name: string;
  replaces: string;
  skips: string[];
  skipRange: string;
  image: string;
  properties: Property[];
  /** The parsed properties (conversion already checked that they parse). */
  parsed: ParsedProperties;
  version: SemVersion;
  release: Release;
  deprecation: ModelDeprecation | undefined;
  /** Its `olm.bundle` failed conversion: already reported, excluded from the model checks. */
  invalid: boolean;
}
