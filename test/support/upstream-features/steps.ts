/**
 * Step definitions for upstream OLM v1's e2e features, written from what each step of its
 * e2e step package does (its steps.go): the same regular expressions, the same kubectl calls and the
 * same waits, over a ScenarioContext.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { load, loadAll } from 'js-yaml';
import type { KubeObject, ScenarioContext, TrackedResource } from './context.ts';
import { eventually } from './kubectl.ts';
import { substituteScenarioVars, templateContent } from './vars.ts';

/** A step's doc string or data table. */
export interface StepArgument {
  docString?: string;
  dataTable?: string[][];
}

/** One row of the table: the text a step must match, and what it does. */
export interface StepDefinition {
  pattern: RegExp;
  /** Which argument the step takes after its captures, if any (a missing one fails the step). */
  argument?: 'docString' | 'dataTable';
  run(ctx: ScenarioContext, captures: string[], arg: StepArgument): Promise<void>;
}

const OLM_DEPLOYMENT = 'operator-controller-controller-manager';
const COS_KIND = 'ClusterObjectSet';
/** Go regexp's [[:alnum:]]+. */
const ALNUM = '([A-Za-z0-9]+)';

const sub = (ctx: ScenarioContext, s: string): string => substituteScenarioVars(s, ctx.names);

async function kubectl(ctx: ScenarioContext, ...args: string[]): Promise<string> {
  const r = await ctx.kubectl(args);
  if (!r.ok) throw new Error(`kubectl ${args.join(' ')} failed: ${r.stderr.trim()}`);
  return r.stdout;
}

/** kubectl's stdout, or undefined when it fails (a poll's "not yet"). */
async function tryKubectl(ctx: ScenarioContext, args: string[], note?: (s: string) => void): Promise<string | undefined> {
  const r = await ctx.kubectl(args);
  if (!r.ok) {
    note?.(r.stderr.trim());
    return undefined;
  }
  return r.stdout;
}

function waitFor(ctx: ScenarioContext, what: string, check: (note: (seen: string) => void) => Promise<boolean>): Promise<void> {
  return eventually(ctx.wait, what, check);
}

const isObject = (v: unknown): v is KubeObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function toObject(yamlText: string): KubeObject {
  const v = load(yamlText);
  if (!isObject(v)) throw new Error('the resource is not a YAML mapping');
  return v;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function field(obj: unknown, ...path: string[]): unknown {
  let cur = obj;
  for (const key of path) {
    if (!isObject(cur)) return undefined;
    cur = cur[key];
  }
  return cur;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const stringMap = (v: unknown): Record<string, string> =>
  isObject(v) ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string')) : {};

function kindName(resource: string): [string, string] {
  const slash = resource.indexOf('/');
  if (slash < 0) throw new Error(`resource ${resource} is not in the format <kind>/<name>`);
  return [resource.slice(0, slash), resource.slice(slash + 1)];
}

function docString(arg: StepArgument): string {
  if (arg.docString === undefined) throw new Error('the step needs a doc string');
  return arg.docString;
}

/** Upstream's parseKeyValueTable: the "key" and "value" columns, variables substituted. */
function keyValueTable(ctx: ScenarioContext, arg: StepArgument): Map<string, string> {
  const rows = arg.dataTable;
  if (rows === undefined || rows.length < 2) throw new Error('table must have a header row and at least one data row');
  const header = rows[0] ?? [];
  const k = header.indexOf('key');
  const v = header.indexOf('value');
  if (k < 0 || v < 0) throw new Error("table must have 'key' and 'value' columns");
  const out = new Map<string, string>();
  for (const row of rows.slice(1)) out.set(sub(ctx, row[k] ?? ''), sub(ctx, row[v] ?? ''));
  return out;
}

const matchesAll = (actual: Record<string, string>, expected: ReadonlyMap<string, string>): boolean =>
  [...expected].every(([k, v]) => actual[k] === v);

// ---- applying ---------------------------------------------------------------------------

/** Records what an apply created; only a plain apply (not one as another user) names ${COS_NAME}, as upstream's. */
function track(ctx: ScenarioContext, obj: KubeObject, asUser: boolean): void {
  const kind = str(obj['kind']);
  const name = str(field(obj, 'metadata', 'name'));
  if (kind === 'ClusterExtension') ctx.addedResources.push({ name, kind: 'clusterextension' });
  else if (kind === COS_KIND && !asUser) {
    ctx.names.clusterObjectSetName = name;
    ctx.addedResources.push({ name, kind: 'clusterobjectset' });
  } else {
    const ns = str(field(obj, 'metadata', 'namespace'));
    ctx.addedResources.push({ name, kind: kind.toLowerCase(), namespace: ns === '' ? ctx.names.namespace : ns });
  }
}

/** Upstream's ResourceIsApplied: substitute, add the feature/scenario annotations, kubectl apply. */
async function resourceIsApplied(ctx: ScenarioContext, template: string, kubectlFlags: readonly string[] = []): Promise<void> {
  const obj = toObject(sub(ctx, template));
  const metadata = isObject(obj['metadata']) ? obj['metadata'] : {};
  obj['metadata'] = metadata;
  metadata['annotations'] = {
    ...stringMap(metadata['annotations']),
    'e2e.olm.operatorframework.io/feature': ctx.featureName,
    'e2e.olm.operatorframework.io/scenario': ctx.scenarioName,
  };
  const r = await ctx.kubectl(['apply', '-f', '-', ...kubectlFlags], JSON.stringify(obj));
  if (!r.ok) throw new Error(`failed to apply resource ${r.stdout}; stderr: ${r.stderr.trim()}`);
  ctx.lastApplyStderr = r.stderr;
  track(ctx, obj, kubectlFlags.length > 0);
}

async function templateFile(ctx: ScenarioContext, file: string, vars: Record<string, string>): Promise<string> {
  return templateContent(await readFile(join(ctx.testdataDir, file), 'utf8'), new Map(Object.entries(vars)));
}

async function applyText(ctx: ScenarioContext, yaml: string, what: string): Promise<void> {
  const r = await ctx.kubectl(['apply', '-f', '-'], yaml);
  if (!r.ok) throw new Error(`failed to apply ${what}: ${r.stderr.trim()}`);
}

async function applyServiceAccount(ctx: ScenarioContext, sa: string, namespace = ctx.names.namespace): Promise<void> {
  const yaml = await templateFile(ctx, 'serviceaccount-template.yaml', {
    TEST_NAMESPACE: namespace,
    SERVICE_ACCOUNT_NAME: sa,
    SERVICEACCOUNT_NAME: sa,
  });
  await applyText(ctx, yaml, 'ServiceAccount configuration');
}

async function applyPermissions(ctx: ScenarioContext, sa: string, template: string, extra: Record<string, string> = {}): Promise<void> {
  await applyServiceAccount(ctx, sa);
  const yaml = await templateFile(ctx, template, {
    TEST_NAMESPACE: ctx.names.namespace,
    SERVICE_ACCOUNT_NAME: sa,
    SERVICEACCOUNT_NAME: sa,
    CLUSTER_EXTENSION_NAME: ctx.names.clusterExtensionName,
    CLUSTEREXTENSION_NAME: ctx.names.clusterExtensionName,
    ...extra,
  });
  await applyText(ctx, yaml, 'RBAC configuration');
  for (const doc of loadAll(yaml)) {
    const kind = str(field(doc, 'kind'));
    if (kind === 'ClusterRole' || kind === 'ClusterRoleBinding')
      ctx.addedResources.push({ name: str(field(doc, 'metadata', 'name')), kind: kind.toLowerCase() });
  }
}

// ---- conditions -------------------------------------------------------------------------

type MessageMatch = (actual: string) => boolean;

const collapse = (s: string): string => s.split(/\s+/).filter(Boolean).join(' ');

/** Exact message: the doc string's words joined by single spaces, then substituted. */
function messageIs(ctx: ScenarioContext, doc: string): MessageMatch {
  const expected = sub(ctx, collapse(doc));
  return (actual) => actual === expected;
}

/** Message fragment: both sides' whitespace collapsed. */
function messageIncludes(ctx: ScenarioContext, doc: string): MessageMatch {
  const expected = sub(ctx, collapse(doc));
  return (actual) => collapse(actual).includes(expected);
}

async function waitForCondition(
  ctx: ScenarioContext,
  resourceType: string,
  name: string,
  type: string,
  status: string,
  reason?: string,
  message?: MessageMatch,
): Promise<void> {
  const want = `${resourceType}/${name} condition ${type}=${status}${reason === undefined ? '' : ` reason ${reason}`}${message === undefined ? '' : ' with the message'}`;
  await waitFor(ctx, want, async (note) => {
    const out = await tryKubectl(ctx, ['get', resourceType, name, '-o', `jsonpath={.status.conditions[?(@.type=="${type}")]}`], note);
    if (out === undefined) return false;
    const c = parseJson(out);
    if (!isObject(c)) {
      note(`no ${type} condition`);
      return false;
    }
    note(`status ${str(c['status'])}, reason ${str(c['reason'])}, message ${JSON.stringify(str(c['message']))}`);
    if (c['status'] !== status) return false;
    if (reason !== undefined && c['reason'] !== reason) return false;
    return message === undefined || message(str(c['message']));
  });
}

const extensionCondition = (ctx: ScenarioContext, type: string, status: string, reason?: string, message?: MessageMatch): Promise<void> =>
  waitForCondition(ctx, 'clusterextension', ctx.names.clusterExtensionName, type, status, reason, message);

const cosCondition = (ctx: ScenarioContext, name: string, type: string, status: string, reason?: string, message?: MessageMatch): Promise<void> =>
  waitForCondition(ctx, 'clusterobjectset', sub(ctx, name), type, status, reason, message);

// ---- resources --------------------------------------------------------------------------

async function resourceAvailable(ctx: ScenarioContext, resource: string): Promise<void> {
  const [kind, name] = kindName(sub(ctx, resource));
  await waitFor(
    ctx,
    `${kind}/${name} exists in ${ctx.names.namespace}`,
    async (note) => (await tryKubectl(ctx, ['get', kind, name, '-n', ctx.names.namespace], note)) !== undefined,
  );
}

async function resourceEventuallyNotFound(ctx: ScenarioContext, resource: string): Promise<void> {
  const [kind, name] = kindName(sub(ctx, resource));
  await waitFor(ctx, `${kind}/${name} is gone from ${ctx.names.namespace}`, async (note) => {
    const out = await tryKubectl(ctx, ['get', kind, name, '-n', ctx.names.namespace, '--ignore-not-found', '-o', 'yaml'], note);
    if (out !== undefined && out.trim() !== '') note('it still exists');
    return out !== undefined && out.trim() === '';
  });
}

async function resourceRemoved(ctx: ScenarioContext, resource: string): Promise<void> {
  const [kind, name] = kindName(sub(ctx, resource));
  ctx.removedResources.push(toObject(await kubectl(ctx, 'get', kind, name, '-n', ctx.names.namespace, '-o', 'yaml')));
  await kubectl(ctx, 'delete', kind, name, '-n', ctx.names.namespace);
}

async function getObject(ctx: ScenarioContext, args: string[], note?: (s: string) => void): Promise<KubeObject | undefined> {
  const out = await tryKubectl(ctx, [...args, '-o', 'json'], note);
  const v = out === undefined ? undefined : parseJson(out);
  return isObject(v) ? v : undefined;
}

/** RFC 7386 merge patch (a new value). */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: KubeObject = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

// ---- ClusterObjectSets and their Secrets --------------------------------------------------

/** The object a phase entry's ref names: a key of a Secret, possibly gzipped JSON. */
async function resolveObjectRef(ctx: ScenarioContext, ref: KubeObject): Promise<KubeObject> {
  const [name, ns, key] = [str(ref['name']), str(ref['namespace']), str(ref['key'])];
  const secret = toObject(await kubectl(ctx, 'get', 'secret', name, '-n', ns, '-o', 'json'));
  const b64 = field(secret, 'data', key);
  if (typeof b64 !== 'string') throw new Error(`key "${key}" not found in Secret ${ns}/${name}`);
  let data = Buffer.from(b64, 'base64');
  if (data.length >= 2 && data[0] === 0x1f && data[1] === 0x8b) data = gunzipSync(data, { maxOutputLength: 10 * 1024 * 1024 });
  const obj = parseJson(data.toString('utf8'));
  if (!isObject(obj)) throw new Error(`key "${key}" of Secret ${ns}/${name} holds no JSON object`);
  return obj;
}

const phasesOf = (cos: unknown): KubeObject[] => {
  const phases = field(cos, 'spec', 'phases');
  return Array.isArray(phases) ? phases.filter(isObject) : [];
};
const objectsOf = (phase: KubeObject): KubeObject[] => (Array.isArray(phase['objects']) ? phase['objects'].filter(isObject) : []);

async function phaseObjects(ctx: ScenarioContext, cos: unknown): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  for (const phase of phasesOf(cos)) {
    for (const [j, entry] of objectsOf(phase).entries()) {
      const ref = entry['ref'];
      if (isObject(ref) && str(ref['name']) !== '') out.push(await resolveObjectRef(ctx, ref));
      else if (isObject(entry['object']) && Object.keys(entry['object']).length > 0) out.push(entry['object']);
      else throw new Error(`object ${j} in phase "${str(phase['name'])}" has neither object nor ref`);
    }
  }
  return out;
}

async function getCos(ctx: ScenarioContext, name: string): Promise<KubeObject> {
  let cos: KubeObject | undefined;
  await waitFor(ctx, `ClusterObjectSet ${name} can be read`, async (note) => {
    cos = await getObject(ctx, ['get', 'clusterobjectset', name], note);
    return cos !== undefined;
  });
  return cos ?? {};
}

async function referredSecretNames(ctx: ScenarioContext, cosName: string): Promise<string[]> {
  const names = new Set<string>();
  for (const phase of phasesOf(await getCos(ctx, cosName)))
    for (const o of objectsOf(phase)) if (str(field(o, 'ref', 'name')) !== '') names.add(str(field(o, 'ref', 'name')));
  if (names.size === 0) throw new Error(`no referred secret names found in ClusterObjectSet "${cosName}"`);
  return [...names];
}

/** Secrets in OLM's namespace labelled with the revision's name. */
async function referredSecrets(ctx: ScenarioContext, cosName: string): Promise<KubeObject[]> {
  const list = toObject(
    await kubectl(ctx, 'get', 'secrets', '-n', ctx.names.olmNamespace, '-l', `olm.operatorframework.io/revision-name=${cosName}`, '-o', 'json'),
  );
  return Array.isArray(list['items']) ? list['items'].filter(isObject) : [];
}

async function someReferredSecrets(ctx: ScenarioContext, cosName: string): Promise<KubeObject[]> {
  const secrets = await referredSecrets(ctx, cosName);
  if (secrets.length === 0) throw new Error(`no referred secrets found for revision "${cosName}"`);
  return secrets;
}

const secretName = (s: KubeObject): string => `${str(field(s, 'metadata', 'namespace'))}/${str(field(s, 'metadata', 'name'))}`;

// ---- ClusterExtensions ------------------------------------------------------------------

async function latestActiveRevision(ctx: ScenarioContext, extName: string): Promise<KubeObject> {
  const list = toObject(await kubectl(ctx, 'get', 'clusterobjectsets', '-l', `olm.operatorframework.io/owner-name=${extName}`, '-o', 'json'));
  let latest: KubeObject | undefined;
  for (const rev of Array.isArray(list['items']) ? list['items'].filter(isObject) : []) {
    if (field(rev, 'spec', 'lifecycleState') !== 'Active') continue;
    if (latest === undefined || Number(field(rev, 'spec', 'revision')) > Number(field(latest, 'spec', 'revision'))) latest = rev;
  }
  if (latest === undefined) throw new Error(`no active revisions found for extension '${extName}'`);
  return latest;
}

async function helmReleaseObjects(ctx: ScenarioContext, extName: string): Promise<KubeObject[]> {
  const list = toObject(
    await kubectl(
      ctx,
      'get',
      'secrets',
      '-n',
      ctx.names.olmNamespace,
      '-l',
      `name=${extName},status=deployed`,
      '--field-selector',
      'type=operatorframework.io/index.v1',
      '-o',
      'json',
    ),
  );
  const items = Array.isArray(list['items']) ? list['items'] : [];
  if (items.length !== 1) throw new Error(`expected one deployed Helm release Secret for ${extName}, found ${items.length}`);
  const chunk = str(field(items[0], 'data', 'chunk'));
  const release = parseJson(gunzipSync(Buffer.from(chunk, 'base64')).toString('utf8'));
  return loadAll(str(field(release, 'manifest'))).filter(isObject);
}

/** Upstream's GatherClusterExtensionObjects: the latest active revision's objects (Boxcutter) or the Helm release's. */
async function gatherExtensionObjects(ctx: ScenarioContext): Promise<void> {
  const name = ctx.names.clusterExtensionName;
  ctx.extensionObjects =
    ctx.featureGates.get('BoxcutterRuntime') === true
      ? await phaseObjects(ctx, await latestActiveRevision(ctx, name))
      : await helmReleaseObjects(ctx, name);
}

async function patchMerge(ctx: ScenarioContext, kind: string, name: string, patch: unknown): Promise<void> {
  await kubectl(ctx, 'patch', kind, name, '--type', 'merge', '-p', JSON.stringify(patch));
}

// ---- catalogs ---------------------------------------------------------------------------

function catalogPort(ctx: ScenarioContext): NonNullable<ScenarioContext['catalogs']> {
  if (ctx.catalogs === undefined) throw new Error('this run was given no catalog builder (loadUpstreamScenarios({ catalogs }))');
  return ctx.catalogs;
}

function scenarioCatalog(ctx: ScenarioContext, userName: string): string {
  const name = ctx.names.catalogs.get(userName);
  if (name === undefined) throw new Error(`no catalog "${userName}" has been created for this scenario`);
  return name;
}

async function buildCatalog(
  ctx: ScenarioContext,
  catalog: string,
  version: string,
  arg: StepArgument,
): Promise<{ catalogName: string; catalogImageRef: string }> {
  if (arg.dataTable === undefined) throw new Error('the step needs a table');
  const built = await catalogPort(ctx).build({ catalog, scenarioId: ctx.names.id, version, table: arg.dataTable });
  for (const [orig, param] of built.packageNames) ctx.names.catalogPackageNames.set(orig, param);
  return built;
}

// ---- the table --------------------------------------------------------------------------

const step = (source: string, run: StepDefinition['run'], argument?: StepDefinition['argument']): StepDefinition => {
  const def: StepDefinition = { pattern: new RegExp(source, 'i'), run };
  if (argument !== undefined) def.argument = argument;
  return def;
};

/** Upstream's step table, in its registration order (the first matching row runs). */
export const STEP_DEFINITIONS: readonly StepDefinition[] = [
  step('^OLM is available$', async (ctx) => {
    await waitFor(ctx, `deployment ${OLM_DEPLOYMENT} in ${ctx.names.olmNamespace} is Available`, async (note) => {
      const out = await tryKubectl(
        ctx,
        ['get', 'deployment', '-n', ctx.names.olmNamespace, OLM_DEPLOYMENT, '-o', 'jsonpath={.status.conditions[?(@.type=="Available")].status}'],
        note,
      );
      if (out !== undefined) note(`Available=${out}`);
      return out === 'True';
    });
  }),
  step('^an image registry is available$', async (ctx) => catalogPort(ctx).imageRegistryIsAvailable()),
  step('^bundle "([^"]+)" is installed in version "([^"]+)"$', async (ctx, [name = '', version = '']) => {
    const want = sub(ctx, name);
    await waitFor(ctx, `ClusterExtension ${ctx.names.clusterExtensionName} installs bundle ${want} ${version}`, async (note) => {
      const out = await tryKubectl(ctx, ['get', 'clusterextension', ctx.names.clusterExtensionName, '-o', 'jsonpath={.status.install.bundle}'], note);
      const b = out === undefined ? undefined : parseJson(out);
      if (out !== undefined) note(`bundle ${out}`);
      return field(b, 'name') === want && field(b, 'version') === version;
    });
  }),
  step('^ClusterExtension is applied(?:\\s+.*)?$', async (ctx, _c, arg) => resourceIsApplied(ctx, docString(arg)), 'docString'),
  step('^ClusterExtension version is updated to "([^"]+)"$', async (ctx, [version = '']) =>
    patchMerge(ctx, 'clusterextension', ctx.names.clusterExtensionName, { spec: { source: { catalog: { version } } } }),
  ),
  step('^ClusterExtension is updated(?:\\s+.*)?$', async (ctx, _c, arg) => resourceIsApplied(ctx, docString(arg)), 'docString'),
  step('^ClusterObjectSet "([^"]+)" lifecycle is set to "([^"]+)"$', async (ctx, [name = '', lifecycle = '']) =>
    patchMerge(ctx, 'clusterobjectset', sub(ctx, name), { spec: { lifecycleState: lifecycle } }),
  ),
  step('^ClusterExtension is available$', async (ctx) => extensionCondition(ctx, 'Installed', 'True')),
  step('^ClusterExtension is rolled out$', async (ctx) => {
    await extensionCondition(ctx, 'Progressing', 'True', 'Succeeded');
    await gatherExtensionObjects(ctx);
  }),
  step('^ClusterExtension resources are created and labeled$', async (ctx) => {
    if (ctx.extensionObjects.length === 0) throw new Error('extension objects not found in context');
    for (const obj of ctx.extensionObjects) {
      const [kind, name, ns] = [str(obj['kind']), str(field(obj, 'metadata', 'name')), str(field(obj, 'metadata', 'namespace'))];
      await waitFor(ctx, `${kind} ${name} carries the owner labels`, async (note) => {
        const live = await getObject(ctx, ['get', kind, name, '-n', ns], note);
        const labels = stringMap(field(live, 'metadata', 'labels'));
        note(`labels ${JSON.stringify(labels)}`);
        return (
          labels['olm.operatorframework.io/owner-kind'] === 'ClusterExtension' &&
          labels['olm.operatorframework.io/owner-name'] === ctx.names.clusterExtensionName
        );
      });
    }
  }),
  step('^ClusterExtension is removed$', async (ctx) => resourceRemoved(ctx, `clusterextension/${ctx.names.clusterExtensionName}`)),
  step('^ClusterExtension (?:latest generation )?has (?:been )?reconciled(?: the latest generation)?$', async (ctx) => {
    await waitFor(ctx, `ClusterExtension ${ctx.names.clusterExtensionName} reconciled its latest generation`, async (note) => {
      const out = await tryKubectl(
        ctx,
        [
          'get',
          'clusterextension',
          ctx.names.clusterExtensionName,
          '-o',
          "jsonpath={.metadata.generation},{.status.conditions[?(@.type=='Progressing')].observedGeneration}",
        ],
        note,
      );
      if (out === undefined) return false;
      note(`generation,observedGeneration = ${out}`);
      const [gen = '', observed = ''] = out.split(',');
      return gen !== '' && gen === observed;
    });
  }),
  step("^the ClusterExtension's constituent resources are removed$", async (ctx) => {
    if (ctx.extensionObjects.length === 0) throw new Error('extension objects not found in context');
    for (const obj of ctx.extensionObjects) await resourceEventuallyNotFound(ctx, `${str(obj['kind'])}/${str(field(obj, 'metadata', 'name'))}`);
  }),
  step('^ClusterExtension reports "([^"]+)" as active revision(s?)$', async (ctx, [raw = '']) => {
    const want = new Set(raw.split(',').map((r) => sub(ctx, r.trim())));
    await waitFor(ctx, `ClusterExtension ${ctx.names.clusterExtensionName} has active revisions ${[...want].join(', ')}`, async (note) => {
      const out = await tryKubectl(
        ctx,
        ['get', 'clusterextension', ctx.names.clusterExtensionName, '-o', 'jsonpath={.status.activeRevisions}'],
        note,
      );
      const revs = out === undefined ? undefined : parseJson(out);
      if (!Array.isArray(revs)) return false;
      const have = new Set(revs.map((r) => str(field(r, 'name'))));
      note(`active revisions ${[...have].join(', ')}`);
      return have.size === want.size && [...want].every((n) => have.has(n));
    });
  }),
  step(
    `^ClusterExtension reports ${ALNUM} as ${ALNUM} with Reason ${ALNUM} and Message:$`,
    async (ctx, [t = '', s = '', r = ''], arg) => extensionCondition(ctx, t, s, r, messageIs(ctx, docString(arg))),
    'docString',
  ),
  step(
    `^ClusterExtension reports ${ALNUM} as ${ALNUM} with Reason ${ALNUM} and Message includes:$`,
    async (ctx, [t = '', s = '', r = ''], arg) => extensionCondition(ctx, t, s, r, messageIncludes(ctx, docString(arg))),
    'docString',
  ),
  step(`^ClusterExtension reports ${ALNUM} as ${ALNUM} with Reason ${ALNUM}$`, async (ctx, [t = '', s = '', r = '']) =>
    extensionCondition(ctx, t, s, r),
  ),
  step(`^ClusterExtension reports ${ALNUM} as ${ALNUM}$`, async (ctx, [t = '', s = '']) => extensionCondition(ctx, t, s)),
  step(`^ClusterObjectSet "([^"]+)" reports ${ALNUM} as ${ALNUM} with Reason ${ALNUM}$`, async (ctx, [n = '', t = '', s = '', r = '']) =>
    cosCondition(ctx, n, t, s, r),
  ),
  step(
    `^ClusterObjectSet "([^"]+)" reports ${ALNUM} as ${ALNUM} with Reason ${ALNUM} and Message:$`,
    async (ctx, [n = '', t = '', s = '', r = ''], arg) => cosCondition(ctx, n, t, s, r, messageIs(ctx, docString(arg))),
    'docString',
  ),
  step(
    `^ClusterObjectSet "([^"]+)" reports ${ALNUM} as ${ALNUM} with Reason ${ALNUM} and Message includes:$`,
    async (ctx, [n = '', t = '', s = '', r = ''], arg) => cosCondition(ctx, n, t, s, r, messageIncludes(ctx, docString(arg))),
    'docString',
  ),
  step(
    `^ClusterExtension reports ${ALNUM} transition between (\\d+) and (\\d+) minutes since its creation$`,
    async (ctx, [t = '', min = '0', max = '0']) => {
      const out = await kubectl(
        ctx,
        'get',
        'clusterextension',
        ctx.names.clusterExtensionName,
        '-o',
        `jsonpath={.metadata.creationTimestamp},{.status.conditions[?(@.type=="${t}")].lastTransitionTime}`,
      );
      const [created = '', transitioned = ''] = out.split(',');
      const elapsed = Date.parse(transitioned) - Date.parse(created);
      if (Number.isNaN(elapsed)) throw new Error(`expected creationTimestamp and lastTransitionTime but got: ${out}`);
      if (elapsed < Number(min) * 60_000)
        throw new Error(`condition ${t} transitioned too early: ${elapsed / 1000}s since creation (expected >= ${min}m)`);
      if (elapsed > Number(max) * 60_000)
        throw new Error(`condition ${t} transitioned too late: ${elapsed / 1000}s since creation (expected <= ${max}m)`);
    },
  ),
  step('^ClusterObjectSet is applied(?:\\s+.*)?$', async (ctx, _c, arg) => resourceIsApplied(ctx, docString(arg)), 'docString'),
  step('^ClusterObjectSet "([^"]+)" reconciliation is triggered$', async (ctx, [name = '']) => {
    await kubectl(ctx, 'annotate', 'clusterobjectset', sub(ctx, name), '--overwrite', `e2e-trigger=${process.hrtime.bigint()}`);
  }),
  step('^ClusterObjectSet "([^"]+)" has observed phase "([^"]+)" with a non-empty digest$', async (ctx, [n = '', p = '']) => {
    const [name, phase] = [sub(ctx, n), sub(ctx, p)];
    await waitFor(ctx, `ClusterObjectSet ${name} observed phase ${phase} with a digest`, async (note) => {
      const out = await tryKubectl(
        ctx,
        ['get', 'clusterobjectset', name, '-o', `jsonpath={.status.observedPhases[?(@.name=="${phase}")].digest}`],
        note,
      );
      return out !== undefined && out.trim() !== '';
    });
  }),
  step('^ClusterObjectSet "([^"]+)" is archived$', async (ctx, [n = '']) => cosCondition(ctx, n, 'Progressing', 'False', 'Archived')),
  step(
    '^ClusterObjectSet "([^"]+)" contains annotation "([^"]+)" with value$',
    async (ctx, [n = '', key = ''], arg) => {
      const name = sub(ctx, n.trim());
      const want = arg.docString ?? '';
      await waitFor(ctx, `ClusterObjectSet ${name} has annotation ${key}`, async (note) => {
        const annotations = stringMap(field(await getObject(ctx, ['get', 'clusterobjectset', name], note), 'metadata', 'annotations'));
        note(`${key}=${JSON.stringify(annotations[key])}`);
        return annotations[key] === want;
      });
    },
    'docString',
  ),
  step('^ClusterObjectSet "([^"]+)" has label "([^"]+)" with value "([^"]+)"$', async (ctx, [n = '', key = '', v = '']) => {
    const [name, want] = [sub(ctx, n.trim()), sub(ctx, v)];
    await waitFor(ctx, `ClusterObjectSet ${name} has label ${key}=${want}`, async (note) => {
      const labels = stringMap(field(await getObject(ctx, ['get', 'clusterobjectset', name], note), 'metadata', 'labels'));
      note(`${key}=${JSON.stringify(labels[key])}`);
      return labels[key] === want;
    });
  }),
  step('^ClusterObjectSet "([^"]+)" phase objects are not found or not owned by the revision$', async (ctx, [n = '']) => {
    const name = sub(ctx, n.trim());
    const cos = await getCos(ctx, name);
    const uid = str(field(cos, 'metadata', 'uid'));
    for (const obj of await phaseObjects(ctx, cos)) {
      const [kind, objName, ns] = [str(obj['kind']), str(field(obj, 'metadata', 'name')), str(field(obj, 'metadata', 'namespace'))];
      if (kind === '' || objName === '') throw new Error(`clusterobjectset "${name}" has a phase object with an empty kind or name`);
      await waitFor(ctx, `${kind} ${objName} is gone or no longer owned by ${name}`, async (note) => {
        const args = ['get', kind, objName, '--ignore-not-found', '-o', 'json', ...(ns === '' ? [] : ['-n', ns])];
        const out = await tryKubectl(ctx, args, note);
        if (out === undefined) return false;
        if (out.trim() === '') return true;
        const refs = field(parseJson(out), 'metadata', 'ownerReferences');
        const owned = Array.isArray(refs) && refs.some((r) => field(r, 'kind') === COS_KIND && field(r, 'name') === name && field(r, 'uid') === uid);
        if (owned) note('still owned by the revision');
        return !owned;
      });
    }
  }),
  step('^ClusterObjectSet "([^"]+)" phase objects are managed in Kubernetes secrets$', async (ctx, [n = '']) => {
    const name = sub(ctx, n.trim());
    await waitFor(ctx, `every phase object of ClusterObjectSet ${name} is a Secret ref`, async (note) => {
      const phases = phasesOf(await getObject(ctx, ['get', 'clusterobjectset', name], note));
      return phases.length > 0 && phases.every((p) => objectsOf(p).length > 0 && objectsOf(p).every((o) => str(field(o, 'ref', 'name')) !== ''));
    });
  }),
  step('^ClusterObjectSet "([^"]+)" referred secrets exist in "([^"]+)" namespace$', async (ctx, [n = '', namespace = '']) => {
    const ns = sub(ctx, namespace.trim());
    for (const secret of await referredSecretNames(ctx, sub(ctx, n.trim())))
      await waitFor(
        ctx,
        `Secret ${ns}/${secret} exists`,
        async (note) => (await tryKubectl(ctx, ['get', 'secret', secret, '-n', ns], note)) !== undefined,
      );
  }),
  step('^ClusterObjectSet "([^"]+)" referred secrets are immutable$', async (ctx, [n = '']) => {
    for (const s of await someReferredSecrets(ctx, sub(ctx, n.trim())))
      if (s['immutable'] !== true) throw new Error(`referred secret ${secretName(s)} is not immutable`);
  }),
  step(
    '^ClusterObjectSet "([^"]+)" referred secrets contain labels$',
    async (ctx, [n = ''], arg) => {
      const name = sub(ctx, n.trim());
      const want = keyValueTable(ctx, arg);
      await waitFor(ctx, `the Secrets of ClusterObjectSet ${name} carry the labels`, async () => {
        const secrets = await referredSecrets(ctx, name);
        return secrets.length > 0 && secrets.every((s) => matchesAll(stringMap(field(s, 'metadata', 'labels')), want));
      });
    },
    'dataTable',
  ),
  step('^ClusterObjectSet "([^"]+)" referred secrets are owned by the object set$', async (ctx, [n = '']) => {
    const name = sub(ctx, n.trim());
    const uid = str(field(toObject(await kubectl(ctx, 'get', 'clusterobjectset', name, '-o', 'json')), 'metadata', 'uid'));
    for (const s of await someReferredSecrets(ctx, name)) {
      const refs = field(s, 'metadata', 'ownerReferences');
      const ref = Array.isArray(refs)
        ? refs.find((r) => field(r, 'kind') === COS_KIND && field(r, 'name') === name && field(r, 'uid') === uid)
        : undefined;
      if (ref === undefined) throw new Error(`secret ${secretName(s)} does not have ownerReference to ClusterObjectSet "${name}" (uid ${uid})`);
      if (field(ref, 'controller') !== true)
        throw new Error(`secret ${secretName(s)} has ownerReference to ClusterObjectSet but controller is not true`);
    }
  }),
  step('^ClusterObjectSet "([^"]+)" referred secrets have type "([^"]+)"$', async (ctx, [n = '', type = '']) => {
    for (const s of await someReferredSecrets(ctx, sub(ctx, n.trim())))
      if (s['type'] !== type) throw new Error(`secret ${secretName(s)} has type "${str(s['type'])}", expected "${type}"`);
  }),

  step('^resource "([^"]+)" is installed$', async (ctx, [r = '']) => resourceAvailable(ctx, r)),
  step('^resource "([^"]+)" is available$', async (ctx, [r = '']) => resourceAvailable(ctx, r)),
  step('^resource "([^"]+)" is removed$', async (ctx, [r = '']) => resourceRemoved(ctx, r)),
  step('^resource "([^"]+)" is (?:eventually not found|not found|not installed)$', async (ctx, [r = '']) => resourceEventuallyNotFound(ctx, r)),
  step('^resource "([^"]+)" exists$', async (ctx, [r = '']) => resourceAvailable(ctx, r)),
  step('^resource is applied$', async (ctx, _c, arg) => resourceIsApplied(ctx, docString(arg)), 'docString'),
  step('^namespace is applied$', async (ctx, _c, arg) => resourceIsApplied(ctx, docString(arg)), 'docString'),
  step('^deployment "([^"]+)" reports as (not ready|ready)$', async (ctx, [d = '', state = '']) => {
    const ns = ctx.names.namespace;
    const labels = stringMap(
      parseJson(await kubectl(ctx, 'get', 'deployment', '-n', ns, sub(ctx, d), '-o', 'jsonpath={.spec.selector.matchLabels}')),
    );
    const pod = await kubectl(
      ctx,
      'get',
      'pod',
      '-n',
      ns,
      '-o',
      'jsonpath={.items[0].metadata.name}',
      ...Object.entries(labels).map(([k, v]) => `--selector=${k}=${v}`),
    );
    await kubectl(ctx, 'exec', pod, '-n', ns, '--', state.toLowerCase() === 'ready' ? 'touch' : 'rm', '/tmp/www/ready');
  }),
  step(
    '^resource apply fails with error msg containing "([^"]+)"$',
    async (ctx, [msg = ''], arg) => {
      const yaml = sub(ctx, docString(arg));
      toObject(yaml);
      await waitFor(ctx, `kubectl apply fails with "${msg}"`, async (note) => {
        const r = await ctx.kubectl(['apply', '-f', '-'], yaml);
        note(r.ok ? 'the apply succeeded' : r.stderr.trim());
        return !r.ok && r.stderr.includes(msg);
      });
    },
    'docString',
  ),
  step(
    '^resource is applied as user "([^"]+)" in group "([^"]+)"$',
    async (ctx, [user = '', group = ''], arg) => {
      await resourceIsApplied(ctx, docString(arg), [`--as=${user}`, `--as-group=${group}`]);
    },
    'docString',
  ),
  step(
    '^resource apply as user "([^"]+)" in group "([^"]+)" fails with error msg containing "([^"]+)"$',
    async (ctx, [user = '', group = '', msg = ''], arg) => {
      const yaml = sub(ctx, docString(arg));
      const obj = toObject(yaml);
      const as = [`--as=${user}`, `--as-group=${group}`];
      await waitFor(ctx, `a server-side dry run of the apply as ${user} fails with "${msg}"`, async (note) => {
        const r = await ctx.kubectl(['apply', '--dry-run=server', '-f', '-', ...as], yaml);
        note(r.ok ? 'the dry run succeeded' : r.stderr.trim());
        return !r.ok && r.stderr.includes(msg);
      });
      const r = await ctx.kubectl(['apply', '-f', '-', ...as], yaml);
      if (r.ok) {
        ctx.addedResources.push({ name: str(field(obj, 'metadata', 'name')), kind: str(obj['kind']).toLowerCase() });
        throw new Error(`expected apply to fail with "${msg}", but it succeeded`);
      }
      if (!r.stderr.includes(msg)) throw new Error(`expected apply error containing "${msg}", got: ${r.stderr.trim()}`);
    },
    'docString',
  ),
  step(
    '^\\w+ apply emits warning:$',
    async (ctx, _c, arg) => {
      const want = docString(arg).trim();
      if (!ctx.lastApplyStderr.includes(want))
        throw new Error(`expected apply warning ${JSON.stringify(want)}, got stderr: ${JSON.stringify(ctx.lastApplyStderr)}`);
    },
    'docString',
  ),
  step('^\\w+ apply does not emit warning$', async (ctx) => {
    if (ctx.lastApplyStderr.includes('Warning:')) throw new Error(`expected no warnings, got stderr: ${JSON.stringify(ctx.lastApplyStderr)}`);
  }),
  step('^resource "([^"]+)" is eventually restored$', async (ctx, [r = '']) => {
    const [kind, name] = kindName(sub(ctx, r));
    await waitFor(ctx, `${kind}/${name} is re-created as it was`, async (note) => {
      const live = await getObject(ctx, ['get', kind, name, '-n', ctx.names.namespace], note);
      if (live === undefined) return false;
      const created = Date.parse(str(field(live, 'metadata', 'creationTimestamp')));
      const i = ctx.removedResources.findIndex(
        (old) =>
          field(old, 'metadata', 'name') === field(live, 'metadata', 'name') &&
          old['kind'] === live['kind'] &&
          Date.parse(str(field(old, 'metadata', 'creationTimestamp'))) < created,
      );
      const old = ctx.removedResources[i];
      if (old === undefined) return false;
      const key = kind === 'configmap' ? 'data' : 'spec';
      if (!deepEqual(old[key], live[key])) return false;
      ctx.removedResources.splice(i, 1);
      return true;
    });
  }),
  step(
    '^resource "([^"]+)" matches$',
    async (ctx, [r = ''], arg) => {
      const [kind, name] = kindName(sub(ctx, r));
      const want = toObject(sub(ctx, docString(arg)));
      await waitFor(ctx, `${kind}/${name} matches`, async (note) => {
        const live = await getObject(ctx, ['get', kind, name, '-n', ctx.names.namespace], note);
        return live !== undefined && deepEqual(mergePatch(live, want), live);
      });
    },
    'docString',
  ),
  step('^rollout restart is performed on "([^"]+)"$', async (ctx, [r = '']) => {
    const resource = sub(ctx, r);
    const [kind] = kindName(resource);
    if (kind !== 'deployment') throw new Error(`only deployment resources are supported for rollout restart, got: "${kind}"`);
    await kubectl(ctx, 'rollout', 'restart', resource, '-n', ctx.names.namespace);
  }),
  step(
    '^annotations are added to "([^"]+)"$',
    async (ctx, [r = ''], arg) => {
      const [kind, name] = kindName(sub(ctx, r));
      await kubectl(
        ctx,
        'annotate',
        kind,
        name,
        ...[...keyValueTable(ctx, arg)].map(([k, v]) => `${k}=${v}`),
        '--overwrite',
        '-n',
        ctx.names.namespace,
      );
    },
    'dataTable',
  ),
  step(
    '^labels are added to "([^"]+)"$',
    async (ctx, [r = ''], arg) => {
      const [kind, name] = kindName(sub(ctx, r));
      await kubectl(ctx, 'label', kind, name, ...[...keyValueTable(ctx, arg)].map(([k, v]) => `${k}=${v}`), '--overwrite', '-n', ctx.names.namespace);
    },
    'dataTable',
  ),
  step('^resource "([^"]+)" has annotations$', async (ctx, [r = ''], arg) => hasMetadataMap(ctx, r, 'annotations', arg), 'dataTable'),
  step('^resource "([^"]+)" has labels$', async (ctx, [r = ''], arg) => hasMetadataMap(ctx, r, 'labels', arg), 'dataTable'),
  step('^deployment "([^"]+)" pod template has annotation "([^"]+)"$', async (ctx, [d = '', key = '']) => {
    const name = sub(ctx, d);
    await waitFor(ctx, `deployment ${name}'s pod template has annotation ${key}`, async (note) => {
      const annotations = field(
        await getObject(ctx, ['get', 'deployment', name, '-n', ctx.names.namespace], note),
        'spec',
        'template',
        'metadata',
        'annotations',
      );
      return isObject(annotations) && Object.hasOwn(annotations, key);
    });
  }),
  step('^deployment "([^"]+)" rollout is complete$', async (ctx, [d = '']) => {
    const name = sub(ctx, d);
    await waitFor(ctx, `deployment ${name} rolled out`, async (note) => {
      const out = await tryKubectl(ctx, ['rollout', 'status', `deployment/${name}`, '-n', ctx.names.namespace, '--watch=false'], note);
      if (out !== undefined) note(out.trim());
      return out !== undefined && out.includes('successfully rolled out');
    });
  }),
  step('^deployment "([^"]+)" has (\\d+) replica sets?$', async (ctx, [d = '', count = '0']) => {
    const name = sub(ctx, d);
    const ns = ctx.names.namespace;
    await waitFor(ctx, `deployment ${name} has ${count} ReplicaSets, one of them ready`, async (note) => {
      const dep = await getObject(ctx, ['get', 'deployment', name, '-n', ns], note);
      if (dep === undefined) return false;
      const selector = Object.entries(stringMap(field(dep, 'spec', 'selector', 'matchLabels'))).map(([k, v]) => `${k}=${v}`);
      const list = await getObject(ctx, ['get', 'rs', '-n', ns, ...(selector.length > 0 ? ['-l', selector.join(',')] : [])], note);
      const items = field(list, 'items');
      const uid = field(dep, 'metadata', 'uid');
      const owned = (Array.isArray(items) ? items : []).filter((rs) => {
        const refs = field(rs, 'metadata', 'ownerReferences');
        return Array.isArray(refs) && refs.some((o) => field(o, 'kind') === 'Deployment' && field(o, 'uid') === uid);
      });
      note(`${owned.length} ReplicaSets`);
      return (
        owned.length === Number(count) &&
        owned.some((rs) => Number(field(rs, 'status', 'replicas')) > 0 && Number(field(rs, 'status', 'readyReplicas')) > 0)
      );
    });
  }),
  step('^ClusterExtension reconciliation is triggered$', async (ctx) => {
    const ce = toObject(await kubectl(ctx, 'get', 'clusterextension', ctx.names.clusterExtensionName, '-o', 'json'));
    const enforcement = field(ce, 'spec', 'install', 'preflight', 'crdUpgradeSafety', 'enforcement') === 'None' ? 'Strict' : 'None';
    await patchMerge(ctx, 'clusterextension', ctx.names.clusterExtensionName, {
      spec: { install: { preflight: { crdUpgradeSafety: { enforcement } } } },
    });
  }),

  step(
    '^ServiceAccount "([^"]*)" with permissions to install extensions is available in "([^"]*)" namespace$',
    async (ctx, [sa = '', namespace = '']) => {
      const ns = sub(ctx, namespace);
      ctx.addedResources.push({ name: ns, kind: 'namespace' });
      await applyServiceAccount(ctx, sa, ns);
      await applyPermissions(ctx, sa, 'rbac-template-for-all-extensions.yaml', { TEST_NAMESPACE: ns });
    },
  ),
  step('^namespace "([^"]*)" is available$', async (ctx, [namespace = '']) => {
    await applyText(ctx, await templateFile(ctx, 'namespace-template.yaml', { NAMESPACE: sub(ctx, namespace) }), `namespace ${sub(ctx, namespace)}`);
  }),
  step('^ServiceAccount "([^"]*)" with needed permissions is available in test namespace$', async (ctx, [sa = '']) => {
    const kernel = ctx.featureGates.get('BoxcutterRuntime') === true ? 'boxcutter' : 'helm';
    await applyPermissions(ctx, sa, `${sa}-${kernel}-rbac-template.yaml`);
  }),
  step('^ServiceAccount "([^"]*)" is available in test namespace$', async (ctx, [sa = '']) => applyServiceAccount(ctx, sa)),
  step('^ServiceAccount "([^"]*)" in test namespace is cluster admin$', async (ctx, [sa = '']) =>
    applyPermissions(ctx, sa, 'cluster-admin-rbac-template.yaml'),
  ),

  step('^catalog "([^"]+)" is deleted$', async (ctx, [c = '']) => {
    await kubectl(ctx, 'delete', 'clustercatalog', scenarioCatalog(ctx, c), '--ignore-not-found=true', '--wait=true');
  }),
  step('^catalog "([^"]+)" is updated to version "([^"]+)"$', async (ctx, [c = '', version = '']) => {
    const name = scenarioCatalog(ctx, c);
    const ref = await kubectl(ctx, 'get', 'clustercatalog', name, '-o', 'jsonpath={.spec.source.image.ref}');
    const colon = ref.lastIndexOf(':');
    if (colon < 0) throw new Error(`failed to find tag in image reference ${ref}`);
    await patchMerge(ctx, 'clustercatalog', name, { spec: { source: { image: { ref: `${ref.slice(0, colon)}:${version}` } } } });
  }),
  step(
    '^catalog "([^"]+)" version "([^"]+)" with packages:$',
    async (ctx, [c = '', version = ''], arg) => {
      await buildCatalog(ctx, c, version, arg);
    },
    'dataTable',
  ),
  step('^catalog "([^"]+)" image version "([^"]+)" is also tagged as "([^"]+)"$', async (ctx, [c = '', from = '', to = '']) =>
    catalogPort(ctx).tag({ catalog: c, scenarioId: ctx.names.id, from, to }),
  ),
  step(
    '^a catalog "([^"]+)" with packages:$',
    async (ctx, [c = ''], arg) => {
      const built = await buildCatalog(ctx, c, 'v1', arg);
      ctx.names.catalogs.set(c, built.catalogName);
      await resourceIsAppliedAs(ctx, {
        apiVersion: 'olm.operatorframework.io/v1',
        kind: 'ClusterCatalog',
        metadata: { name: built.catalogName },
        spec: { priority: 0, source: { type: 'Image', image: { pollIntervalMinutes: 1, ref: built.catalogImageRef } } },
      });
    },
    'dataTable',
  ),
  step('^catalog "([^"]+)" is labeled with "([^"]+)"$', async (ctx, [c = '', label = '']) => {
    await kubectl(ctx, 'label', 'clustercatalog', scenarioCatalog(ctx, c), label, '--overwrite');
  }),

  step('^ValidatingAdmissionPolicy "([^"]+)" is active$', async (ctx, [n = '']) => {
    const name = sub(ctx, n);
    await waitFor(ctx, `ValidatingAdmissionPolicy ${name} observed its generation`, async (note) => {
      const out = await tryKubectl(
        ctx,
        ['get', 'validatingadmissionpolicy', name, '-o', 'jsonpath={.metadata.generation},{.status.observedGeneration}'],
        note,
      );
      if (out === undefined) return false;
      note(`generation,observedGeneration = ${out}`);
      const [gen = '', observed = ''] = out.split(',');
      return gen !== '' && gen === observed;
    });
  }),
  step('^operator "([^"]+)" target namespace is "([^"]+)"$', async (ctx, [op = '', ns = '']) => {
    const [operator, want] = [sub(ctx, op), sub(ctx, ns)];
    const dep = toObject(await kubectl(ctx, 'get', 'deployment', '-n', ctx.names.namespace, operator, '-o', 'json'));
    const have = str(field(dep, 'spec', 'template', 'metadata', 'annotations', 'olm.targetNamespaces'));
    if (have !== want) throw new Error(`expected target namespace ${want}, got ${have}`);
  }),

  step('^min value for (ClusterExtension|ClusterObjectSet) ((?:\\.[a-zA-Z]+)+) is set to (\\d+)$', async (ctx, [kind = '', path = '', min = '0']) => {
    const crd = kind === 'ClusterExtension' ? 'clusterextensions.olm.operatorframework.io' : 'clusterobjectsets.olm.operatorframework.io';
    const schemaPath = path
      .slice(1)
      .split('.')
      .flatMap((p) => ['properties', p])
      .join('/');
    const patch = [{ op: 'replace', path: `/spec/versions/0/schema/openAPIV3Schema/${schemaPath}/minimum`, value: Number(min) }];
    await kubectl(ctx, 'patch', 'crd', crd, '--type=json', '-p', JSON.stringify(patch));
  }),

  step('^ClusterExtension "([^"]+)" owns (\\d+) ClusterObjectSets?$', async (ctx, [e = '', count = '0']) => {
    const ext = sub(ctx, e);
    await waitFor(ctx, `ClusterExtension ${ext} owns ${count} ClusterObjectSets`, async (note) => {
      const out = await tryKubectl(
        ctx,
        ['get', 'clusterobjectsets', '-l', `olm.operatorframework.io/owner-name=${ext}`, '-o', 'jsonpath={.items[*].metadata.name}'],
        note,
      );
      if (out === undefined) return false;
      const names = out.trim().split(/\s+/).filter(Boolean);
      note(`owns ${names.join(', ') || 'none'}`);
      return names.length === Number(count);
    });
  }),
  step(`^ClusterExtension "([^"]+)" reports ${ALNUM} as ${ALNUM}$`, async (ctx, [e = '', t = '', s = '']) =>
    waitForCondition(ctx, 'clusterextension', sub(ctx, e), t, s),
  ),
  step(
    `^ClusterExtension "([^"]+)" reports ${ALNUM} as ${ALNUM} with Reason ${ALNUM} and Message includes:$`,
    async (ctx, [e = '', t = '', s = '', r = ''], arg) =>
      waitForCondition(ctx, 'clusterextension', sub(ctx, e), t, s, r, messageIncludes(ctx, docString(arg))),
    'docString',
  ),
];

async function resourceIsAppliedAs(ctx: ScenarioContext, obj: KubeObject): Promise<void> {
  const metadata = isObject(obj['metadata']) ? obj['metadata'] : {};
  metadata['annotations'] = { 'e2e.olm.operatorframework.io/feature': ctx.featureName, 'e2e.olm.operatorframework.io/scenario': ctx.scenarioName };
  obj['metadata'] = metadata;
  await applyText(ctx, JSON.stringify(obj), `${str(obj['kind'])} ${str(metadata['name'])}`);
}

async function hasMetadataMap(ctx: ScenarioContext, r: string, which: 'labels' | 'annotations', arg: StepArgument): Promise<void> {
  const resource = sub(ctx, r);
  const [kind, name] = kindName(resource);
  const want = keyValueTable(ctx, arg);
  await waitFor(ctx, `${resource} has the ${which}`, async (note) => {
    const have = stringMap(field(await getObject(ctx, ['get', kind, name, '-n', ctx.names.namespace], note), 'metadata', which));
    note(`${which} ${JSON.stringify(have)}`);
    return matchesAll(have, want);
  });
}

/** The first definition matching `text`, with its captures; undefined when none does. */
export function matchStep(defs: readonly StepDefinition[], text: string): { def: StepDefinition; captures: string[] } | undefined {
  for (const def of defs) {
    const m = def.pattern.exec(text);
    if (m !== null) return { def, captures: m.slice(1).map((c) => c ?? '') };
  }
  return undefined;
}

/** Upstream's ScenarioCleanup after a passing scenario: what it added, its catalogs, its namespace. */
export async function cleanupScenario(ctx: ScenarioContext): Promise<void> {
  const doomed: TrackedResource[] = [
    ...ctx.addedResources,
    ...[...ctx.names.catalogs.values()].map((name) => ({ name, kind: 'clustercatalog' })),
    { name: ctx.names.namespace, kind: 'namespace' },
  ];
  await Promise.all(
    doomed.map((r) => ctx.kubectl(['delete', r.kind, r.name, '--ignore-not-found=true', ...(r.namespace === undefined ? [] : ['-n', r.namespace])])),
  );
}
