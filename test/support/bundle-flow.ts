/**
 * Helpers for integration tests that put rendered registry+v1 bundles on the real API server
 * the way operator-controller does it (decision 0003): bundle directories derived from the
 * fixtures, rendering with the owner labels the applier adds, server-side apply with the
 * controller's field manager, and the install / upgrade / uninstall / drift-watch requests.
 *
 * Every flow function takes the KubeClient to act with, so the same steps run as the admin
 * or as an extension's ServiceAccount (a scoped client).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { load, loadAll } from 'js-yaml';
import { runRbac } from '../../cmd/olmv1/rbac.ts';
import { parseBundle, readBundleDir, type RegistryV1Bundle } from '../../pkg/operator-controller/bundle/index.ts';
import { FIELD_MANAGER, KEPT_FOR_PACKAGE_ANNOTATION, OWNER_NAME_LABEL } from '../../pkg/shared/api/index.ts';
import {
  applyObjects,
  checkOwnership,
  deleteOwnedObjects,
  describeObject,
  droppedObjects,
  dryRunObjects,
  isCrd,
  refOf,
  withOwnerLabels,
} from '../../pkg/operator-controller/applier/index.ts';
import { isNotFound, NoKindMatchError, type KubeClient, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { render, type RenderOptions } from '../../pkg/operator-controller/render/index.ts';
import { FIXTURE_BUNDLES_DIR } from '../fixtures/bundles/golden-cases.ts';
import { vi } from 'vitest';

export { describeObject, droppedObjects, refOf } from '../../pkg/operator-controller/applier/index.ts';

/** A bundle directory's files as text, keyed by path relative to the bundle root. */
export type BundleText = Map<string, string>;

/** Reads a bundle directory (e.g. a fixture) as text. */
export async function readBundleText(dir: string): Promise<BundleText> {
  const out: BundleText = new Map();
  for (const [path, bytes] of await readBundleDir(dir)) if (!path.endsWith('/')) out.set(path, Buffer.from(bytes).toString('utf8'));
  return out;
}

/** A copy of `files` with every occurrence of each `[from, to]` replaced, in order (e.g. to make names unique per run). */
export function replaceInBundle(files: BundleText, pairs: readonly (readonly [string, string])[]): BundleText {
  const out: BundleText = new Map();
  for (const [path, text] of files)
    out.set(
      path,
      pairs.reduce((t, [from, to]) => t.replaceAll(from, to), text),
    );
  return out;
}

/**
 * The `multi-crd` fixture bundle with its cluster-wide names made unique to `run` (the CRD
 * group, and the `acme-widgets` prefix of the CSV, ClusterRole and other object names), so
 * tests can create it for real on the shared API server.
 */
export async function uniqueMultiCrdBundle(run: string): Promise<BundleText> {
  return replaceInBundle(await readBundleText(join(FIXTURE_BUNDLES_DIR, 'multi-crd')), [
    ['widgets.acme.example.com', `w${run}.acme.example.com`],
    ['acme-widgets', `acme-${run}`],
  ]);
}

/** The multi-crd fixture's CSV file (uniqueMultiCrdBundle renames its content, not the file). */
export const MULTI_CRD_CSV_FILE = 'manifests/acme-widgets.v1.2.0.clusterserviceversion.yaml';

/**
 * The next version of `uniqueMultiCrdBundle(run)`: CSV `acme-<run>.v1.3.0` replacing v1.2.0,
 * without the metrics Service. An upgrade to it drops that Service and the bundle's permission
 * objects, whose names derive from the CSV name.
 */
export function nextMultiCrdVersion(base: BundleText, run: string): BundleText {
  const next = new Map(base);
  next.delete('manifests/acme-widgets-metrics-service_v1_service.yaml');
  editManifest<{ metadata: { name: string }; spec: { version: string; replaces?: string } }>(next, MULTI_CRD_CSV_FILE, (csv) => {
    csv.metadata.name = `acme-${run}.v1.3.0`;
    csv.spec.version = '1.3.0';
    csv.spec.replaces = `acme-${run}.v1.2.0`;
  });
  return next;
}

/**
 * Replaces the single YAML document at `path` by `edit(document)`, written back as JSON
 * (valid YAML). `T` describes the fields the caller edits; it is not checked.
 */
export function editManifest<T>(files: BundleText, path: string, edit: (doc: T) => void): void {
  const text = files.get(path);
  if (text === undefined) throw new Error(`bundle has no file ${path}`);
  const doc = load(text) as T;
  edit(doc);
  files.set(path, JSON.stringify(doc, null, 1));
}

/** Writes `files` as a bundle directory under `dir`; returns `dir`. */
export async function writeBundleDir(dir: string, files: BundleText): Promise<string> {
  for (const [path, text] of files) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

/** Parses a bundle directory; throws with the parser's message when it is refused. */
export async function loadBundleDir(dir: string): Promise<RegistryV1Bundle> {
  const parsed = parseBundle(await readBundleDir(dir));
  if (!parsed.ok) throw new Error(`bundle ${dir}: ${parsed.error}`);
  return parsed.value;
}

/** Renders `bundle` and adds the owner labels of `extension` to every object, as the applier does before applying. */
export function renderRelease(bundle: RegistryV1Bundle, options: RenderOptions, extension: string): KubeObject[] {
  const rendered = render(bundle, options);
  if (!rendered.ok) throw new Error(`rendering ${bundle.csv.metadata?.name ?? bundle.packageName}: ${rendered.error.message}`);
  return withOwnerLabels(rendered.value, extension);
}

/** One object the API server refused, with its message. */
export interface ApplyFailure {
  object: string;
  message: string;
}

/**
 * Server-side applies `objects` in order with the controller's field manager and force,
 * collecting refusals as `Kind ns/name: message` instead of stopping at the first.
 */
export async function applyEach(
  client: KubeClient,
  objects: readonly KubeObject[],
  options: { dryRun?: boolean; fieldValidation?: 'Strict' } = {},
): Promise<ApplyFailure[]> {
  const failures: ApplyFailure[] = [];
  for (const obj of objects) {
    try {
      await client.apply(obj, { fieldManager: FIELD_MANAGER, force: true, ...options });
    } catch (e) {
      failures.push({ object: describeObject(obj), message: (e as Error).message });
    }
  }
  return failures;
}

/** Applies `objects` in order; throws naming the first object refused and the server's message. */
export async function applyAll(client: KubeClient, objects: readonly KubeObject[]): Promise<void> {
  for (const obj of objects) {
    try {
      await client.apply(obj, { fieldManager: FIELD_MANAGER, force: true });
    } catch (e) {
      throw new Error(`applying ${describeObject(obj)}: ${(e as Error).message}`, { cause: e });
    }
  }
}

/** What `olmv1 rbac` printed and its exit code. */
export interface RbacOutput {
  code: number;
  stdout: string;
  stderr: string;
  objects: KubeObject[];
}

/** Runs the real `olmv1 rbac` command function with captured output. */
export async function runRbacCommand(args: readonly string[]): Promise<RbacOutput> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
  const code = await runRbac(args, io, {});
  const objects = code === 0 ? (loadAll(stdout) as KubeObject[]).filter((o) => o !== null && o !== undefined) : [];
  return { code, stdout, stderr, objects };
}

/** A bundle prepared for an install: its rendered objects (with owner labels) and `olmv1 rbac`'s output. */
export interface Release {
  objects: KubeObject[];
  rbac: KubeObject[];
}

/** The stderr of `olmv1 rbac` without its privilege-escalation review (a header line, then `warning:` lines). */
function otherNotes(stderr: string): string {
  return stderr
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('warning: ') && !/ amounts? to privilege escalation/.test(line))
    .join('\n');
}

/**
 * Renders the bundle directory `dir` for an install and runs `olmv1 rbac` with the same
 * options; throws when the command fails or prints a note other than its escalation review
 * (the fixtures' bundles grant wildcards on purpose; pkg/operator-controller/render rbac-escalation.test.ts covers it).
 */
export async function prepareRelease(
  dir: string,
  opts: { installNamespace: string; watchNamespace?: string; serviceAccount: string; extension: string },
): Promise<Release> {
  const watch = opts.watchNamespace === undefined ? [] : ['--watch-namespace', opts.watchNamespace];
  const out = await runRbacCommand([dir, '--install-namespace', opts.installNamespace, ...watch, '--service-account', opts.serviceAccount]);
  if (out.code !== 0 || otherNotes(out.stderr) !== '') throw new Error(`olmv1 rbac ${dir} exited with ${out.code}: ${out.stderr}`);
  const config = opts.watchNamespace === undefined ? {} : { config: { watchNamespace: opts.watchNamespace } };
  const objects = renderRelease(await loadBundleDir(dir), { installNamespace: opts.installNamespace, ...config }, opts.extension);
  return { objects, rbac: out.objects };
}

/**
 * Polls `check` every `intervalMs` (50) with vitest's `vi.waitFor` until it returns true; throws
 * `what` after `timeoutMs` (a function is called then, to say what was last seen). An error
 * `check` throws ends the wait at once with that error (a process that exited will not pause or
 * answer later).
 */
export async function waitUntil(what: string | (() => string), check: () => Promise<boolean>, timeoutMs = 20_000, intervalMs = 50): Promise<void> {
  let thrown: { error: unknown } | undefined;
  await vi.waitFor(
    async () => {
      if (thrown !== undefined) return;
      const done = await check().catch((error: unknown) => {
        thrown = { error };
        return true;
      });
      if (!done) throw new Error(`timed out after ${timeoutMs} ms waiting until ${typeof what === 'string' ? what : what()}`);
    },
    { timeout: timeoutMs, interval: intervalMs },
  );
  if (thrown !== undefined) throw thrown.error;
}

/** Waits until every CRD in `crds` reports condition Established=True. */
export async function waitForCrdsEstablished(client: KubeClient, crds: readonly KubeObject[]): Promise<void> {
  for (const crd of crds) {
    await waitUntil(`${describeObject(crd)} is Established`, async () => {
      const live = await client.get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(refOf(crd));
      return live.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true;
    });
    // Established comes before discovery lists the kind (the API server updates discovery
    // asynchronously); the client resolves kinds through discovery, so wait for that too.
    const spec = (crd as { spec?: { group?: string; names?: { kind?: string }; versions?: { name: string; served?: boolean }[] } }).spec;
    for (const version of spec?.versions?.filter((v) => v.served !== false) ?? []) {
      const gvk = { group: spec?.group ?? '', version: version.name, kind: spec?.names?.kind ?? '' };
      await waitUntil(`${gvk.kind} in ${gvk.group}/${gvk.version} is in discovery`, async () =>
        client.mapper.resolve(gvk).then(
          () => true,
          (e: unknown) => {
            if (!(e instanceof NoKindMatchError)) throw e;
            client.mapper.invalidate();
            return false;
          },
        ),
      );
    }
  }
}

/** Deletes `obj` (admin clean-up or test set-up) and waits until it is gone (CRDs have a finalizer). */
export async function deleteAndWait(client: KubeClient, obj: KubeObject): Promise<void> {
  await client.delete(refOf(obj)).catch((e: unknown) => {
    if (!isNotFound(e)) throw e;
  });
  await waitUntil(`${describeObject(obj)} is gone`, async () =>
    client.get(refOf(obj)).then(
      () => false,
      (e: unknown) => (isNotFound(e) ? true : Promise.reject(e)),
    ),
  );
}

/**
 * Deletes what `releases` left at cluster scope (objects and printed RBAC), as the admin. Their
 * namespaced objects stay: namespaces never finish deleting without a namespace controller.
 */
export async function deleteClusterScoped(client: KubeClient, releases: readonly Release[]): Promise<void> {
  const leftovers = releases.flatMap((r) => [...r.objects, ...r.rbac]).filter((o) => o.metadata.namespace === undefined);
  for (const obj of leftovers) await client.delete(refOf(obj)).catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
}

/** The package name these flows install as: CRDs an uninstall here kept are marked for it, and taken back by it. */
const KEPT_FOR = 'bundle-flow';

/** The extension whose owner labels `objects` carry (renderRelease). */
function extensionOf(objects: readonly KubeObject[]): string {
  return objects[0]?.metadata.labels?.[OWNER_NAME_LABEL] ?? '';
}

/**
 * Before a new revision's first write, as the product applier: the ownership check (a
 * metadata-only LIST per resource and namespace) and the server-side dry run of every object.
 */
async function checkRelease(client: KubeClient, objects: readonly KubeObject[]): Promise<void> {
  const owner = {
    extension: extensionOf(objects),
    packageName: KEPT_FOR,
    installNamespace: objects.find((o) => o.metadata.namespace)?.metadata.namespace ?? '',
  };
  const report = await checkOwnership(client, objects, owner);
  await dryRunObjects(client, objects, report.absent);
}

/** Install (decision 0003): the product applier's checks, then server-side apply of every object, in apply order. */
export async function installRelease(client: KubeClient, objects: readonly KubeObject[]): Promise<void> {
  await checkRelease(client, objects);
  await applyObjects(client, objects);
}

/** Drift check: GET of every object; throws naming an object that is missing or unreadable. */
export async function readRelease(client: KubeClient, objects: readonly KubeObject[]): Promise<void> {
  for (const obj of objects) {
    try {
      await client.get(refOf(obj));
    } catch (e) {
      throw new Error(`reading ${describeObject(obj)}: ${(e as Error).message}`, { cause: e });
    }
  }
}

/**
 * Upgrade: GET of the new release's CRDs that already exist (the upgrade-safety preflight
 * reads the live CRD), server-side apply of every new object, then DELETE of every object the
 * new release dropped, except CustomResourceDefinitions (never deleted).
 */
export async function upgradeRelease(client: KubeClient, from: readonly KubeObject[], to: readonly KubeObject[]): Promise<void> {
  const existing = new Set(from.map(describeObject));
  await readRelease(
    client,
    to.filter((o) => isCrd(o) && existing.has(describeObject(o))),
  );
  await checkRelease(client, to);
  await applyObjects(client, to);
  await deleteOwnedObjects(client, droppedObjects(from, to), extensionOf(from));
}

/**
 * Uninstall: the product applier's GET and conditional DELETE of every object it owns except
 * CustomResourceDefinitions (kept by design, and marked for their package), in reverse order.
 */
export async function uninstallRelease(client: KubeClient, objects: readonly KubeObject[]): Promise<void> {
  const outcome = await deleteOwnedObjects(client, objects, extensionOf(objects), {
    onKeptCrd: (crd) =>
      client.patch(refOf(crd), { metadata: { annotations: { [KEPT_FOR_PACKAGE_ANNOTATION]: KEPT_FOR } } }, 'merge').then(() => undefined),
  });
  if (outcome.skipped.length > 0) throw new Error(`uninstall skipped ${JSON.stringify(outcome.skipped)}`);
}

/** The (type, namespace) pairs the drift watch covers, with the object names expected in each. */
function watchScopes(objects: readonly KubeObject[]): { type: { apiVersion: string; kind: string }; namespace?: string; names: string[] }[] {
  const scopes = new Map<string, { type: { apiVersion: string; kind: string }; namespace?: string; names: string[] }>();
  for (const o of objects) {
    const ns = o.metadata.namespace;
    const key = `${o.apiVersion}/${o.kind}/${ns ?? ''}`;
    const scope = scopes.get(key) ?? { type: { apiVersion: o.apiVersion, kind: o.kind }, ...(ns === undefined ? {} : { namespace: ns }), names: [] };
    scope.names.push(o.metadata.name ?? '');
    scopes.set(key, scope);
  }
  return [...scopes.values()];
}

/**
 * Drift watch: per resource, LIST and WATCH with the owner-name label selector (namespaced
 * kinds in their namespace, cluster-scoped kinds cluster-wide). Asserts both see exactly
 * the release's objects (the watch's initial ADDED events), so the labels must be there.
 */
export async function watchRelease(client: KubeClient, objects: readonly KubeObject[], extension: string): Promise<void> {
  const labelSelector = `${OWNER_NAME_LABEL}=${extension}`;
  for (const { type, namespace, names } of watchScopes(objects)) {
    const where = `${type.kind} in ${namespace ?? 'the cluster'}`;
    const expected = [...names].sort().join(',');
    const listed = await client.list(type, { labelSelector, ...(namespace === undefined ? {} : { namespace }) });
    const listedNames = listed.items
      .map((o) => o.metadata.name)
      .sort()
      .join(',');
    if (listedNames !== expected) throw new Error(`LIST ${where} found [${listedNames}], expected [${expected}]`);
    const watched = await watchInitial(client, type, labelSelector, namespace, names.length);
    if (watched.sort().join(',') !== expected) throw new Error(`WATCH ${where} found [${watched.join(',')}], expected [${expected}]`);
  }
}

/**
 * Opens a WATCH (no resourceVersion, so the server first sends ADDED for existing objects)
 * and returns the names of the first `count` ADDED events; a refused watch throws its ApiError.
 */
export async function watchInitial(
  client: KubeClient,
  type: { apiVersion: string; kind: string },
  labelSelector: string,
  namespace: string | undefined,
  count: number,
): Promise<string[]> {
  const names: string[] = [];
  const signal = AbortSignal.timeout(10_000);
  const events = client.watch(type, { labelSelector, timeoutSeconds: 10, signal, ...(namespace === undefined ? {} : { namespace }) });
  for await (const ev of events) {
    if (ev.type === 'ADDED') names.push(ev.object.metadata.name ?? '');
    if (names.length >= count) break;
  }
  return names;
}
