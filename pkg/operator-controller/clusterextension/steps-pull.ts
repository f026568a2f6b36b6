/**
 * The pull and render steps: the target bundle from the bundle cache or a background pull
 * (bundlepull/pulls.ts), rendered into the objects to apply; or, for the installed bundle, its
 * release record in their place.
 */
import { describeObject, pruneUnknownFields, withOwnerLabels } from '../applier/index.ts';
import { jsonEqual, type Step, type StepOutcome } from '../../shared/controller/index.ts';
import { wrapError } from '../../shared/errors/index.ts';
import type { EventRecorder, KubeObject, OpenApiSchemas } from '../../shared/kube/index.ts';
import { Manifest, type ReleaseBundle } from '../release/index.ts';
import { otherLineFinder, takeOtherObject } from '../bundle/index.ts';
import { LineStore } from '../../shared/lines/index.ts';
import { signaturePolicyDetail } from '../../shared/image/index.ts';
import { extensionRenderOptions, render, renderFailureToError, watchNamespaceHint, type ClusterProxy, type RenderFeatures } from '../render/index.ts';
import { bundleProperties, type BundlePullScheduler } from '../bundlepull/index.ts';
import type { ExtensionState, ResolvedState } from './pipeline-state.ts';
import { NoteMemory, recordEvent, recordPullFailed } from './recorded-events.ts';
import { setInstalledFrom, setProgressingRetrying } from './status.ts';
import { fail, forBundle } from './failures.ts';
import { makePlan, recordedContent } from './plan.ts';
import { resolvedStep } from './phases.ts';

/** What the pull step uses: the bundle pulls (from the cache, or in the background). */
export interface PullPorts {
  pulls: Pick<BundlePullScheduler, 'get'>;
  /** Where a failed pull is recorded, with what a signature policy refusal names. */
  events: EventRecorder;
}

/** What the render step uses: the API server's schemas (to drop undeclared fields), the rendering switches, the cluster-wide proxy, and the Events recorder. */
export interface RenderPorts {
  schemas: Pick<OpenApiSchemas, 'schemaFor'>;
  features: RenderFeatures;
  /** The cluster-wide proxy as of this reconcile, set in the operator's containers (decision 0132); none when absent. */
  clusterProxy?: () => ClusterProxy;
  /** Where how to set a missing watchNamespace goes (a Warning Event, once per change). */
  events: EventRecorder;
}

/** True when the target is the installed bundle (same name and version). */
function unchanged(state: ExtensionState, target: ReleaseBundle): boolean {
  const i = state.installed?.bundle;
  return i !== undefined && i.name === target.name && i.version === target.version;
}

/**
 * Gets the target bundle from the cache or a pull (bundlepull/pulls.ts), which runs in the
 * background so that no reconcile worker waits on a registry for more than a moment
 * (decision 0067). By target and bundle:
 *
 * - Any target, bundle cached or pulled within the wait: rendered as before.
 * - The installed bundle with the `spec.config` it was installed with, not cached: its release
 *   record is re-applied at once (drift repair does not wait for a registry), while the pull
 *   refills the cache in the background (its end queues a reconcile, which renders); a failed
 *   pull re-applies the record too, as before.
 * - A new bundle, or the installed one with another `spec.config`, still being pulled:
 *   Progressing Retrying `pulling image "<ref>" of bundle ... since <time>`, and the reconcile
 *   stops without an error (no backoff); the pull's end queues the next one.
 * - A new bundle whose pull failed: `error for resolved bundle ...: <pull error>`, retried with
 *   the controller's backoff.
 * - The installed bundle with another `spec.config` whose pull failed: the release record is
 *   re-applied (drift repair), then the pull error is reported as above.
 *
 * The release record (the bundle with its digest, manifest and config) re-applied as it is
 * records no new revision.
 */
export function pullStep(ports: PullPorts): Step<ExtensionState> {
  return resolvedStep('pull', (state) => pullBundle(ports, state));
}

async function pullBundle(ports: PullPorts, state: ResolvedState): Promise<StepOutcome> {
  const resolved = state.target;
  const target = resolved.bundle;
  const installed = unchanged(state, target) ? state.installed : undefined;
  // The deployed revision's digest when the target is that bundle: restarts and catalog
  // outages pull exactly what is installed, wherever its tag points now.
  const ref = installed?.bundle.digestRef ?? target.image;
  // The record holds exactly what a render would give (same bundle, same configuration), so a
  // drift repair need not wait for a registry.
  const recordFits = installed !== undefined && jsonEqual(state.ce.spec.config?.inline, installed.config);
  const pulled = await ports.pulls.get(state.ce.metadata.name, ref, { signal: state.signal, ...(recordFits ? { waitMs: 0 } : {}) });
  if (pulled.state === 'done') {
    state.bundle = pulled.fetched.bundle;
    const kept = state.bundle.otherLines;
    if (kept instanceof LineStore) state.held.defer(() => kept.close());
    // Held until the reconcile ends (the state's `held`), through render and apply.
    const lease = pulled.fetched.lease;
    if (lease !== undefined) state.held.defer(() => lease.release());
    state.target = { ...resolved, bundle: { ...target, digestRef: pulled.fetched.digestRef } };
    state.log.debug({ image: ref, digestRef: pulled.fetched.digestRef, fromCache: pulled.fetched.fromCache }, 'bundle ready');
    return undefined;
  }
  if (installed !== undefined && (recordFits || pulled.state === 'failed')) {
    // The release record stands in for the image: its bundle (with the digest pulled at
    // install), manifest and config, so the apply re-applies it without a new revision.
    state.target = { ...resolved, bundle: installed.bundle };
    if (pulled.state === 'pending') {
      state.log.debug({ image: ref, since: pulled.startedAt }, 'installed bundle not cached, re-applying its release record while it is pulled');
      return undefined;
    }
    state.log.warn({ err: pulled.error, image: ref }, 'bundle pull failed, keeping the installed release');
    recordPullFailed(ports.events, state, target, pulled.error, signaturePolicyDetail(pulled.error));
    // Another configuration was asked for: the record is not the desired state; say why after re-applying it.
    if (!recordFits) state.resolutionError ??= forBundle(target, pulled.error);
    return undefined;
  }
  setInstalledFrom(state.ce, state.installed);
  if (pulled.state === 'failed') {
    recordPullFailed(ports.events, state, target, pulled.error, signaturePolicyDetail(pulled.error));
    fail(state, forBundle(target, pulled.error));
  }
  // Not an error: no backoff. The pull's end queues the extension again.
  setProgressingRetrying(state.ce, pullingMessage(target, ref, pulled.startedAt));
  state.log.info({ image: ref, since: pulled.startedAt }, 'waiting for the bundle pull');
  return {};
}

/** Progressing's message while the target bundle is being pulled. */
function pullingMessage(bundle: ReleaseBundle, ref: string, since: Date): string {
  const at = since.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return `pulling image ${JSON.stringify(ref)} of bundle ${JSON.stringify(bundle.name)} with version ${JSON.stringify(bundle.version)} since ${at}`;
}

/** Renders the bundle for `spec.namespace` and `spec.config`, labels the objects and drops fields the API server does not know. */
export function renderStep(ports: RenderPorts): Step<ExtensionState> {
  const reported = new NoteMemory();
  return resolvedStep('render', (state) => renderBundle(ports, reported, state));
}

async function renderBundle(ports: RenderPorts, reported: NoteMemory, state: ResolvedState): Promise<StepOutcome> {
  const target = state.target;
  const name = state.ce.metadata.name;
  const namespace = state.ce.spec.namespace;
  if (state.bundle === undefined) {
    // The installed release's record stands in for the image (the pull step).
    const installed = state.installed;
    if (installed === undefined) throw new Error('ClusterExtension step render run with neither a pulled bundle nor a deployed release');
    state.plan = makePlan(state, target, recordedContent(installed));
    return undefined;
  }
  const config = state.ce.spec.config?.inline;
  // The options as `olmv1 upgrade plan` makes them too (render/features.ts): the rendering
  // switches of the gates and the cluster-wide proxy, read now: its change queues every extension (decision 0132).
  const rendered = render(state.bundle, extensionRenderOptions(state.ce.spec, ports.features, ports.clusterProxy?.()));
  if (!rendered.ok) {
    setInstalledFrom(state.ce, state.installed);
    // The condition: upstream's text exactly. How to set spec.config.inline.watchNamespace, when
    // that is what is missing, goes to a WatchNamespaceRequired Event after it, once per change.
    const hint = watchNamespaceHint(rendered.error, state.bundle, namespace, 'cluster-extension');
    const note = hint === undefined ? undefined : `${rendered.error.message}\n${hint.slice(1, -1)}`;
    if (note !== undefined && reported.changed(state.ce, note)) recordEvent(ports.events, state, 'WatchNamespaceRequired', note);
    fail(state, forBundle(target.bundle, renderFailureToError(rendered.error)));
  }
  reported.changed(state.ce, '');
  // Each pruned object becomes its line at once: the rendering is held as text, a third of its
  // size as objects, and the apply parses one object at a time (decision 0098).
  const otherLines = state.bundle.otherLines;
  // Where the bundle's lines are (a file for a bundle near the caps, bundlepull/source.ts), so is
  // its rendering.
  const file = otherLines instanceof LineStore ? otherLines.sibling() : undefined;
  if (file !== undefined) state.held.defer(() => file.close());
  const lines: string[] | LineStore = file ?? [];
  const dropped: { object: string; paths: string[] }[] = [];
  // Which rendered objects a bundle line stands for (bundle/other-lines.ts), before the owner labels copy them.
  const lineOf = otherLineFinder(state.bundle);
  const sources = rendered.value.map(lineOf);
  const labelled: (KubeObject | undefined)[] = withOwnerLabels(rendered.value, name);
  // Of the bundle, the release needs only its CSV's properties, and the rendered objects share
  // its parsed manifests: let go of both, so that each object can be collected once its pruned
  // copy is made, rather than holding the bundle twice (decision 0098).
  rendered.value.length = 0;
  const properties = bundleProperties(state.bundle);
  delete state.bundle;
  for (let i = 0; i < labelled.length; i++) {
    const rendering = labelled[i];
    if (rendering === undefined) continue;
    labelled[i] = undefined;
    // A bundle object kept as a JSON line is parsed here, alone (bundle/other-lines.ts).
    const source = sources[i];
    const obj = source === undefined || otherLines === undefined ? rendering : takeOtherObject(otherLines, source, rendering);
    let schema;
    try {
      schema = await ports.schemas.schemaFor(obj.apiVersion, obj.kind, state.signal);
    } catch (err) {
      setInstalledFrom(state.ce, state.installed);
      fail(state, forBundle(target.bundle, wrapError('error reading the API schema', err)));
    }
    const pruned = pruneUnknownFields(obj, schema);
    lines.push(JSON.stringify(pruned.object));
    if (pruned.dropped.length > 0) dropped.push({ object: describeObject(obj), paths: pruned.dropped });
  }
  // Every object kept as a line must have come back through the renderer as its stub: one left
  // over would mean a renderer that copies objects without their line, applying stubs instead.
  if (otherLines !== undefined && otherLines.left > 0) throw new Error('render step: bundle objects kept as lines were not all rendered');
  // Every line was taken: a file's descriptor and space go now rather than at the reconcile's end.
  if (otherLines instanceof LineStore) otherLines.close();
  const objects = Manifest.ofLines(lines, `the rendering of bundle ${JSON.stringify(target.bundle.name)}`);
  state.plan = makePlan(state, target, { objects, properties, config, droppedFields: dropped });
  return undefined;
}
