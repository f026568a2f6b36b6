/**
 * Bundle property parsing as operator-registry's `property.Parse` does it: known property
 * types must decode into their Go struct, every other value must merely be JSON. Errors read
 * `parse property[N] of type "t": <json error>`. Pure.
 */
import { err, ok, type Result } from '../errors/index.ts';
import { isPropertyValueMissing } from './decode-config.ts';
import { goQuote } from '../../gocompat/gotext/index.ts';
import { GO_RAW, goDecode, type GoObject, MISSING } from './go-json-decode.ts';
import { GO_PROPERTY_TYPES } from './go-types.ts';
import type { Property } from './types.ts';

/** An `olm.package` property value. */
export interface PackageProperty {
  packageName: string;
  version: string;
  release: string;
}

/** What validation needs from a bundle's properties. */
export interface ParsedProperties {
  packages: PackageProperty[];
  /** Number of `olm.bundle.object` properties (the bundle's inline manifests). */
  bundleObjects: number;
}

/** Parses properties in order, failing on the first one whose value does not decode. */
export function parseProperties(props: readonly Property[]): Result<ParsedProperties, string> {
  const out: ParsedProperties = { packages: [], bundleObjects: 0 };
  for (let i = 0; i < props.length; i++) {
    const p = props[i] as Property;
    const type = GO_PROPERTY_TYPES.get(p.type) ?? GO_RAW;
    const r = goDecode(isPropertyValueMissing(p) ? MISSING : p.value, type);
    if (r.error !== undefined) return err(`parse property[${i}] of type ${goQuote(p.type)}: ${r.error}`);
    if (p.type === 'olm.package') {
      const v = r.value as GoObject;
      out.packages.push({ packageName: v['packageName'] as string, version: v['version'] as string, release: v['release'] as string });
    } else if (p.type === 'olm.bundle.object') {
      out.bundleObjects++;
    }
  }
  return ok(out);
}
