/**
 * A release as Helm's release JSON: the document upstream's chunked Secrets driver stores
 * (Helm v3 `release.Release` plus a top-level `labels` object), written from and read into our
 * `Release`.
 *
 * Where each field of `Release` goes (docs/decisions/0074-helm-release-format.md):
 *   extension             name
 *   revision              version
 *   status, description   info.status, info.description
 *   firstDeployed,        info.first_deployed, info.last_deployed (RFC 3339; Go's zero time
 *   lastDeployed            0001-01-01T00:00:00Z when unset, as encoding/json writes time.Time)
 *   namespace             namespace (the install namespace, Helm's release namespace)
 *   bundle (identity)     labels: upstream's storage labels olm.operatorframework.io/
 *                           package-name, bundle-name, bundle-version, bundle-reference (the
 *                           image) and bundle-release when the bundle has one
 *   properties            chart.metadata.annotations["olm.properties"] (a JSON array in a
 *                           string: where upstream's chart carries the bundle's properties)
 *   config                config (Helm's user-supplied values, `helm get values`)
 *   manifest              manifest, one JSON object per line (manifest.ts)
 *   bundle.digestRef,     olmv1.digestRef, olmv1.notes: a top-level field of our own, which
 *   notes                   Helm and upstream ignore when they decode (and drop if they rewrite
 *                           the record: such a record reads as upstream's, without them)
 *   extensionUID          not in the JSON: the index Secret's owner reference to the
 *                           ClusterExtension (upstream's place for it), passed in when reading
 * chart.metadata also carries name (the package) and version (the bundle version), so Helm's
 * CHART column reads `<package>-<version>`; chart.templates and chart.files stay empty (upstream
 * repeats every object there; nothing reads them back, and they would double the record).
 */
import { z } from 'zod';
import { Manifest, type LineSink } from './manifest.ts';
import { BundleKey } from './naming.ts';
import { ReleaseStatus, type Release, type ReleaseBundle, type ReleaseSummary } from './types.ts';
import { jsonSyntaxProblem } from '../../shared/errors/index.ts';

/** encoding/json's text of Go's zero time.Time (`info.deleted`, and unset deploy times). */
const GO_ZERO_TIME = '0001-01-01T00:00:00Z';
/** Chart metadata annotation holding the bundle's properties (a JSON array as a string). */
const PROPERTIES_ANNOTATION = 'olm.properties';
/** The top-level field of the release JSON holding what only we record. */
const OUR_FIELD = 'olmv1';

/** The storage labels of `bundle` (upstream's release labels): bundle-release only when set. */
function storageLabels(bundle: ReleaseBundle): Record<string, string> {
  return {
    [BundleKey.name]: bundle.name,
    [BundleKey.package]: bundle.package,
    [BundleKey.version]: bundle.version,
    [BundleKey.reference]: bundle.image,
    ...(bundle.release === undefined ? {} : { [BundleKey.release]: bundle.release }),
  };
}

/**
 * The release JSON of `release` and a newline (Go's json.Encoder output shape), in pieces whose
 * concatenation is the text, so that a large manifest is never one string (decision 0098).
 * Fields come in the order Go's encoder writes a `release.Release` (then `labels`, then ours),
 * omitting what `omitempty` would omit except `config` and `manifest`. Escaping piece by piece
 * gives JSON.stringify's text for the whole, since no piece ends inside a surrogate pair.
 */
export function* helmReleaseJson(release: Release): Generator<string, void, undefined> {
  const ours = {
    ...(release.bundle.digestRef === undefined ? {} : { digestRef: release.bundle.digestRef }),
    ...(release.notes === undefined ? {} : { notes: release.notes }),
  };
  const before = {
    name: release.extension,
    info: {
      first_deployed: release.firstDeployed ?? GO_ZERO_TIME,
      last_deployed: release.lastDeployed ?? GO_ZERO_TIME,
      deleted: GO_ZERO_TIME,
      ...(release.description === '' ? {} : { description: release.description }),
      status: release.status,
    },
    chart: {
      metadata: {
        name: release.bundle.package,
        version: release.bundle.version,
        annotations: { [PROPERTIES_ANNOTATION]: JSON.stringify(release.properties) },
      },
      lock: null,
      templates: [],
      values: {},
      schema: null,
      files: [],
    },
    ...(release.config === undefined ? {} : { config: release.config }),
  };
  const after = {
    version: release.revision,
    ...(release.namespace === undefined ? {} : { namespace: release.namespace }),
    labels: storageLabels(release.bundle),
    [OUR_FIELD]: ours,
  };
  // `{...before` without its `}`, then the manifest's string, then `...after}` without its `{`.
  yield `${JSON.stringify(before).slice(0, -1)},"manifest":"`;
  // A record read as text (a status change of an old revision), or a rendering kept as lines,
  // is written as it is, without parsing its objects only to print them again.
  for (const piece of release.manifest.text()) yield* escapedPieces(piece);
  yield `",${JSON.stringify(after).slice(1)}\n`;
}

/** Below V8's large-object size: strings this small are collected young, large ones only by a full collection. */
const PIECE = 32_768;

/**
 * `line` escaped as the inside of a JSON string, in pieces of at most PIECE characters of
 * `line` each; cut only where no surrogate pair is split.
 */
function* escapedPieces(line: string): Generator<string, void, undefined> {
  for (let at = 0; at < line.length;) {
    let end = Math.min(at + PIECE, line.length);
    if (end < line.length && isHighSurrogate(line.charCodeAt(end - 1))) end--;
    yield JSON.stringify(line.slice(at, end)).slice(1, -1);
    at = end;
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

const Notes = z.object({
  droppedFields: z.array(z.object({ object: z.string(), paths: z.array(z.string()) })).optional(),
  keptObjects: z.array(z.string()).optional(),
  skippedObjects: z.array(z.string()).optional(),
});

// Only the fields read are declared; Helm's others (hooks, chart templates, ...) are ignored,
// as Go's decoder ignores what its struct lacks. Go writes nil maps as null.
const HelmRelease = z.object({
  name: z.string().min(1),
  version: z.number().int().positive(),
  namespace: z.string().optional(),
  info: z.object({
    first_deployed: z.string().optional(),
    last_deployed: z.string().optional(),
    description: z.string().optional(),
    status: z.string(),
  }),
  chart: z.object({ metadata: z.object({ annotations: z.record(z.string(), z.string()).nullish() }).nullish() }).nullish(),
  config: z.record(z.string(), z.unknown()).nullish(),
  manifest: z.string().optional(),
  labels: z.record(z.string(), z.string()).nullish(),
  [OUR_FIELD]: z.object({ digestRef: z.string().optional(), notes: Notes.optional() }).optional(),
});

const STATUSES: ReadonlySet<string> = new Set(Object.values(ReleaseStatus));

/**
 * As {@link fromHelmRelease}, without the manifest at all (its text is not checked): for
 * readers that need only the bundle, status and properties (ReleaseStore.deployed).
 */
export function fromHelmReleaseSummary(doc: unknown, extensionUID: string): { ok: true; summary: ReleaseSummary } | { ok: false; problem: string } {
  const read = readHelmRelease(doc, extensionUID);
  return read.ok ? { ok: true, summary: read.summary } : read;
}

/**
 * Reads a release JSON document (ours, or upstream's without our field) into a Release with
 * `extensionUID`, its manifest kept as text (Manifest.ofText: a read that parses a corrupt
 * manifest throws, naming `where`). Returns the problems, described, when it is not a
 * release we can use.
 */
export function fromHelmRelease(doc: unknown, extensionUID: string, where: string): { ok: true; release: Release } | { ok: false; problem: string } {
  const read = readHelmRelease(doc, extensionUID);
  return read.ok ? { ok: true, release: { ...read.summary, manifest: Manifest.ofText(read.manifest, where) } } : read;
}

/**
 * As {@link fromHelmRelease} for a document whose manifest text was cut out and read into
 * `lines` (manifest-bytes.ts): the release reads its manifest from them. Not a release when the
 * document still holds manifest text (a second `manifest` member).
 */
export function fromHelmReleaseLines(
  doc: unknown,
  extensionUID: string,
  lines: LineSink,
  where: string,
): { ok: true; release: Release } | { ok: false; problem: string } {
  const read = readHelmRelease(doc, extensionUID);
  if (!read.ok) return read;
  if (read.manifest !== '') return { ok: false, problem: 'manifest text left after the cut' };
  return { ok: true, release: { ...read.summary, manifest: Manifest.ofLines(lines, `release record ${where} is corrupt`) } };
}

function readHelmRelease(
  doc: unknown,
  extensionUID: string,
): { ok: true; summary: ReleaseSummary; manifest: string } | { ok: false; problem: string } {
  const parsed = HelmRelease.safeParse(doc);
  if (!parsed.success) {
    return { ok: false, problem: parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ') };
  }
  const d = parsed.data;
  const status = d.info.status;
  if (!STATUSES.has(status)) return { ok: false, problem: `info.status ${JSON.stringify(status)} is not a status operator-controller records` };
  const labels = d.labels ?? {};
  const missing = [BundleKey.package, BundleKey.name, BundleKey.version, BundleKey.reference].filter((k) => labels[k] === undefined);
  if (missing.length > 0) return { ok: false, problem: `labels: ${missing.map((k) => JSON.stringify(k)).join(', ')} missing` };
  const properties = parseProperties(d.chart?.metadata?.annotations?.[PROPERTIES_ANNOTATION]);
  if (!properties.ok) return properties;
  const ours = d[OUR_FIELD];
  const release = labels[BundleKey.release];
  const bundle: ReleaseBundle = {
    package: labels[BundleKey.package] ?? '',
    name: labels[BundleKey.name] ?? '',
    version: labels[BundleKey.version] ?? '',
    ...(release === undefined ? {} : { release }),
    image: labels[BundleKey.reference] ?? '',
    ...(ours?.digestRef === undefined ? {} : { digestRef: ours.digestRef }),
  };
  const firstDeployed = deployTime(d.info.first_deployed);
  const lastDeployed = deployTime(d.info.last_deployed);
  return {
    ok: true,
    manifest: d.manifest ?? '',
    summary: {
      extension: d.name,
      extensionUID,
      revision: d.version,
      status: status as ReleaseStatus,
      ...(d.namespace === undefined || d.namespace === '' ? {} : { namespace: d.namespace }),
      bundle,
      properties: properties.value,
      ...(d.config === undefined || d.config === null ? {} : { config: d.config }),
      ...(ours?.notes === undefined ? {} : { notes: ours.notes }),
      description: d.info.description ?? '',
      ...(firstDeployed === undefined ? {} : { firstDeployed }),
      ...(lastDeployed === undefined ? {} : { lastDeployed }),
    },
  };
}

/** The properties annotation as a list; absent (a CSV without properties) is []. */
function parseProperties(text: string | undefined): { ok: true; value: unknown[] } | { ok: false; problem: string } {
  if (text === undefined) return { ok: true, value: [] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    // Not V8's message: it quotes the record's bytes (issue 69).
    return { ok: false, problem: `chart annotation ${PROPERTIES_ANNOTATION} is not JSON: ${jsonSyntaxProblem(e)}` };
  }
  if (!Array.isArray(value)) return { ok: false, problem: `chart annotation ${PROPERTIES_ANNOTATION} is not a JSON list` };
  return { ok: true, value };
}

/** A stored deploy time, undefined for Go's zero time (never deployed) or none. */
function deployTime(text: string | undefined): string | undefined {
  return text === undefined || text === '' || text === GO_ZERO_TIME ? undefined : text;
}
