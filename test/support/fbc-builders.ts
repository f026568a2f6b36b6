/** Builders of FBC fragments (bundles, channels, deprecations, partitions) for the resolver's unit tests. */
import type { Bundle, Channel, ChannelEntry, DeclarativeConfig, Deprecation, Property } from '../../pkg/shared/fbc/types.ts';

/** Options of `bundle`. */
interface BundleOptions {
  pkg?: string;
  /** Extra properties, appended after the `olm.package` one. */
  properties?: Property[];
  /** A `release` key in the `olm.package` property value. */
  release?: string;
}

/** An `olm.bundle` named `name` with an `olm.package` property carrying `version`. */
export function bundle(name: string, version: string, options: BundleOptions = {}): Bundle {
  const pkg = options.pkg ?? 'foo';
  const value: Record<string, string> = { packageName: pkg, version };
  if (options.release !== undefined) value['release'] = options.release;
  return {
    schema: 'olm.bundle',
    name,
    package: pkg,
    image: `registry.example/${pkg}/${name}:latest`,
    properties: [{ type: 'olm.package', value }, ...(options.properties ?? [])],
  };
}

/** An `olm.channel` of package `pkg` (default `foo`). */
export function channel(name: string, entries: ChannelEntry[], pkg = 'foo'): Channel {
  return { schema: 'olm.channel', name, package: pkg, entries };
}

/** An `olm.deprecations` object from `[schema, name, message]` triples. */
export function deprecation(entries: [string, string | undefined, string][], pkg = 'foo'): Deprecation {
  return {
    schema: 'olm.deprecations',
    package: pkg,
    entries: entries.map(([schema, name, message]) => ({
      reference: name === undefined ? { schema } : { schema, name },
      message,
    })),
  };
}

/** A partition with an `olm.package` for `pkg` plus the given parts. */
export function partition(parts: Partial<DeclarativeConfig>, pkg = 'foo'): DeclarativeConfig {
  return {
    packages: parts.packages ?? [{ schema: 'olm.package', name: pkg, defaultChannel: 'stable' }],
    channels: parts.channels ?? [],
    bundles: parts.bundles ?? [],
    deprecations: parts.deprecations ?? [],
    others: parts.others ?? [],
  };
}
