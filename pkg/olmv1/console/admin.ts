/**
 * The Catalogs, Cluster and upgrade requests of the console (pure): ClusterCatalog rows, and the
 * command lines of `olmv1 catalog add|remove` and `olmv1 status` the console runs as the user,
 * the version of an approval and the revision of a rollback request. Every value is bound to its flag (`--flag=value`) or follows `--`,
 * so no request value can add a flag; names must be DNS names.
 */
import { parseSemver } from '../../shared/semver/index.ts';

/** A condition as the pages show it ('' when absent). */
interface ConditionView {
  status: string;
  reason: string;
  message: string;
}

/** One ClusterCatalog on the Catalogs page. */
export interface CatalogView {
  name: string;
  image: string;
  /** `Available` or `Unavailable` (spec.availabilityMode). */
  availability: string;
  priority: number;
  /** spec.source.image.pollIntervalMinutes, '' when unset. */
  pollInterval: string;
  lastUnpacked: string;
  serving: ConditionView;
  progressing: ConditionView;
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** An image reference: registry host, path, tag or digest; no whitespace, no leading "-" or "/". */
const IMAGE_REF = /^[A-Za-z0-9][A-Za-z0-9._:@/+-]*$/;

function obj(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function condition(o: Record<string, unknown>, type: string): ConditionView {
  const list = Array.isArray(obj(o.status).conditions) ? (obj(o.status).conditions as unknown[]) : [];
  const c = obj(list.find((x) => obj(x).type === type));
  return { status: str(c.status), reason: str(c.reason), message: str(c.message) };
}

/** The row of a ClusterCatalog object. */
export function catalogView(raw: unknown): CatalogView {
  const o = obj(raw);
  const spec = obj(o.spec);
  const image = obj(obj(spec.source).image);
  const resolved = obj(obj(obj(o.status).resolvedSource).image);
  const poll = image.pollIntervalMinutes;
  return {
    name: str(obj(o.metadata).name),
    image: str(resolved.ref) || str(image.ref),
    availability: str(spec.availabilityMode) || 'Available',
    priority: typeof spec.priority === 'number' ? spec.priority : 0,
    pollInterval: typeof poll === 'number' ? `${poll}m` : '',
    lastUnpacked: str(obj(o.status).lastUnpacked),
    serving: condition(o, 'Serving'),
    progressing: condition(o, 'Progressing'),
  };
}

/** A ClusterCatalog the Add form asks for (as `olmv1 catalog add` takes it). */
export interface CatalogForm {
  name: string;
  image: string;
  priority: number | undefined;
  pollMinutes: number | undefined;
}

/** The Add catalog form, checked: the catalog to create, or what is wrong. */
export function catalogAddForm(body: unknown): { ok: true; catalog: CatalogForm } | { ok: false; error: string } {
  const b = obj(body);
  const name = str(b.name).trim();
  const image = str(b.image).trim();
  const priority = str(b.priority).trim();
  const poll = str(b.pollInterval).trim();
  if (name.length > 253 || !DNS_SUBDOMAIN.test(name))
    return { ok: false, error: `name ${JSON.stringify(name)}: lower-case letters, digits, "-" and "." (a DNS subdomain)` };
  if (image.length > 1024 || !IMAGE_REF.test(image))
    return { ok: false, error: `image ${JSON.stringify(image)}: an image reference such as quay.io/acme/catalog:latest` };
  if (priority !== '' && (!/^-?\d{1,10}$/.test(priority) || Math.abs(Number(priority)) >= 2 ** 31))
    return { ok: false, error: 'priority: an integer' };
  if (poll !== '' && !/^[1-9]\d{0,5}[mh]$/.test(poll)) return { ok: false, error: 'poll interval: whole minutes or hours, e.g. 10m or 1h' };
  const pollMinutes = poll === '' ? undefined : Number(poll.slice(0, -1)) * (poll.endsWith('h') ? 60 : 1);
  return { ok: true, catalog: { name, image, priority: priority === '' ? undefined : Number(priority), pollMinutes } };
}

/** A name the console passes on (a ClusterCatalog's or a ClusterExtension's), when it is a DNS subdomain. */
export function validName(name: string): boolean {
  return name.length <= 253 && DNS_SUBDOMAIN.test(name);
}

/** The version an approval names ('' or absent: none), or what is wrong with it: a semantic version, as `olmv1 upgrade approve VERSION` takes. */
export function approveVersion(version: unknown): { ok: true; version: string | undefined } | { ok: false; error: string } {
  const v = str(version).trim();
  if (v === '') return { ok: true, version: undefined };
  if (!parseSemver(v).ok) return { ok: false, error: `version ${JSON.stringify(v)}: a semantic version` };
  return { ok: true, version: v };
}

/** The revision a rollback request names, or what is wrong with it. */
export function rollbackRevision(revision: unknown): { ok: true; revision: number } | { ok: false; error: string } {
  if (typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision < 1 || revision > 999_999_999)
    return { ok: false, error: 'revision: a positive integer (a revision of the release history)' };
  return { ok: true, revision };
}
