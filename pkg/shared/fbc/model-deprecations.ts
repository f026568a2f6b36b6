/**
 * The deprecation part of `ConvertToModel`: each `olm.deprecations` blob must name a known
 * package (at most one blob per package) and each entry must reference an existing bundle,
 * channel or the package itself. Errors are collected in upstream's order and wording.
 */
import { goQuote } from '../../gocompat/gotext/index.ts';
import type { ModelPackage } from './model-types.ts';
import type { DeclarativeConfig, DeprecationReference } from './types.ts';

/** Go's `%#v` of a `declcfg.PackageScopedReference`. */
function goReference(ref: DeprecationReference): string {
  return `declcfg.PackageScopedReference{Schema:${goQuote(ref.schema)}, Name:${goQuote(ref.name ?? '')}}`;
}

/** Applies `cfg.deprecations` to the model, appending upstream's errors to `errors`. */
export function convertDeprecations(
  cfg: DeclarativeConfig,
  packages: Map<string, ModelPackage>,
  packageBundles: Map<string, Set<string>>,
  errors: string[],
): void {
  const seenPackages = new Set<string>();
  cfg.deprecations.forEach((d, i) => {
    if (d.package === '') {
      errors.push(`package name must be set for deprecation item ${i}`);
      return;
    }
    const pkg = packages.get(d.package);
    if (pkg === undefined) {
      errors.push(`cannot apply deprecations to an unknown package ${goQuote(d.package)}`);
      return;
    }
    if (seenPackages.has(d.package)) {
      errors.push(`expected a maximum of one deprecation per package: ${goQuote(d.package)}`);
      return;
    }
    seenPackages.add(d.package);
    const seenRefs = new Set<string>();
    d.entries.forEach((entry, j) => {
      const ref = entry.reference;
      const name = ref.name ?? '';
      if (ref.schema === '') {
        errors.push(`schema must be set for deprecation entry [${j}] for package ${goQuote(d.package)}`);
        return;
      }
      const key = `${ref.schema}\u0000${name}`;
      if (seenRefs.has(key)) {
        errors.push(`duplicate deprecation entry ${goReference(ref)} for package ${goQuote(d.package)}`);
        return;
      }
      seenRefs.add(key);
      const deprecation = { message: entry.message };
      switch (ref.schema) {
        case 'olm.bundle':
          if (!(packageBundles.get(d.package)?.has(name) ?? false)) {
            errors.push(`cannot deprecate bundle ${goQuote(name)} for package ${goQuote(d.package)}: bundle not found`);
            return;
          }
          for (const ch of pkg.channels.values()) {
            const b = ch.bundles.get(name);
            if (b !== undefined) b.deprecation = deprecation;
          }
          return;
        case 'olm.channel': {
          const ch = pkg.channels.get(name);
          if (ch === undefined) {
            errors.push(`cannot deprecate channel ${goQuote(name)} for package ${goQuote(d.package)}: channel not found`);
            return;
          }
          ch.deprecation = deprecation;
          return;
        }
        case 'olm.package':
          if (name !== '') {
            errors.push(`package name must be empty for deprecated package ${goQuote(d.package)} (specified ${goQuote(name)})`);
            return;
          }
          pkg.deprecation = deprecation;
          return;
        default:
          errors.push(
            `cannot deprecate object ${goReference(ref)} referenced by entry ${j} for package ${goQuote(d.package)}: object schema unknown`,
          );
      }
    });
  });
}
