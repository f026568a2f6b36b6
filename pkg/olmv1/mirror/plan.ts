/**
 * What `olmv1 catalog mirror` copies, and where (pure): the catalog image, every bundle image its
 * `olm.bundle` entries name and every related image they list, each to the mirror under the same
 * repository path (`quay.io/acme/op` to `MIRROR/acme/op`, as oc-mirror keeps paths), and the
 * mirror configuration a cluster needs to pull the original references from there. Catalog
 * content is hostile input: a reference that does not parse is reported, never used.
 */
import { errorMessage } from '../../shared/errors/index.ts';
import type { DeclarativeConfig } from '../../shared/fbc/index.ts';
import { parseImageReference, type ImageReference } from '../../shared/image/index.ts';

/** Why an image is mirrored. */
type ImageRole = 'catalog' | 'bundle' | 'related';

/** One image to copy. */
export interface PlannedImage {
  /** The reference as the catalog (or the command line) writes it. */
  ref: string;
  role: ImageRole;
  /** The bundles that name it (empty for the catalog). */
  bundles: string[];
  /** `domain/path` of the source repository. */
  source: string;
  /** `MIRROR/path`: the repository it is copied to. */
  target: string;
  /** Its tag, kept at the target too (undefined for a digest reference). */
  tag: string | undefined;
}

/** A plan: what to copy, and what cannot be mirrored and why. */
interface MirrorPlan {
  images: PlannedImage[];
  problems: string[];
}

/**
 * The mirror prefix (`host[:port][/path]`, no tag or digest, no scheme), validated.
 *
 * @returns the prefix without a trailing slash, or an error text.
 */
export function parseMirrorPrefix(text: string): { ok: true; prefix: string } | { ok: false; error: string } {
  const prefix = text.replace(/\/+$/, '');
  const bad = (why: string) => ({ ok: false as const, error: `mirror ${JSON.stringify(text)}: ${why}` });
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(prefix)) return bad('give host[:port][/path], without a scheme');
  const [host = '', ...path] = prefix.split('/');
  if (!/[.:]/.test(host) && host !== 'localhost') return bad('the first part must be a registry host (with a dot or a port, or localhost)');
  if (path.some((p) => p.includes(':') || p.includes('@'))) return bad('give a repository prefix, without a tag or digest');
  try {
    if (parseImageReference(`${prefix}/x`).domain !== host) return bad('the first part must be a registry host');
  } catch (err) {
    return bad(errorMessage(err));
  }
  return { ok: true, prefix };
}

/** `domain/path` of `ref` and its mirror repository under `prefix`. */
function locate(ref: ImageReference, prefix: string): { source: string; target: string } {
  return { source: `${ref.domain}/${ref.path}`, target: `${prefix}/${ref.path}` };
}

/**
 * The plan of mirroring catalog image `catalogRef` with content `dc` to `prefix`: one entry per
 * distinct reference (bundles that share an image are listed together). Two source repositories
 * that would land in one mirror repository (the same path on two registries) are a problem, and
 * the second is left out.
 */
export function mirrorPlan(catalogRef: string, dc: Pick<DeclarativeConfig, 'bundles'>, prefix: string): MirrorPlan {
  const images = new Map<string, PlannedImage>();
  const targets = new Map<string, string>();
  const problems: string[] = [];
  const add = (text: string, role: ImageRole, bundle: string | undefined): void => {
    if (text === '') return;
    const known = images.get(text);
    if (known !== undefined) {
      if (bundle !== undefined && !known.bundles.includes(bundle)) known.bundles.push(bundle);
      return;
    }
    let ref: ImageReference;
    try {
      ref = parseImageReference(text);
    } catch (err) {
      problems.push(`${bundle === undefined ? 'catalog' : `bundle ${JSON.stringify(bundle)}`}: image ${JSON.stringify(text)}: ${errorMessage(err)}`);
      return;
    }
    const { source, target } = locate(ref, prefix);
    const other = targets.get(target);
    if (other !== undefined && other !== source) {
      problems.push(`image ${JSON.stringify(text)}: ${source} and ${other} would both be mirrored to ${target}; left out`);
      return;
    }
    targets.set(target, source);
    images.set(text, {
      ref: text,
      role,
      bundles: bundle === undefined ? [] : [bundle],
      source,
      target,
      tag: ref.digest === undefined ? (ref.tag ?? 'latest') : undefined,
    });
  };
  add(catalogRef, 'catalog', undefined);
  for (const b of dc.bundles) {
    add(b.image, 'bundle', b.name);
    for (const related of b.relatedImages ?? []) add(related.image, 'related', b.name);
  }
  return { images: [...images.values()], problems };
}
