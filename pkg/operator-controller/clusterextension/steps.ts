/**
 * The installed and resolve steps of a ClusterExtension reconcile (upstream's step pipeline
 * with upstream v1.10's ServiceAccount model: the reference README's deliberate difference 1,
 * decision 0003). The steps, in order, are written out once, in
 * cmd/operator-controller/reconcilers.ts; each is built by a factory over the ports it uses,
 * reads and extends the state of pipeline-state.ts (the render step makes the plan that the
 * steps after it act on), and shares what steps share through modules named after it (failures.ts,
 * plan.ts, resolution.ts, crd-safety.ts, phases.ts).
 *
 * Each step sets the conditions its outcome decides and throws to stop with backoff, returns
 * POLL to wait for a person, or returns a result to stop without an error. */
import type { Step, StepOutcome } from '../../shared/controller/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import type { EventRecorder, KubeObject } from '../../shared/kube/index.ts';
import { LineStore } from '../../shared/lines/index.ts';
import { deployedRelease, type ManifestSpill, type ReleaseStore } from '../release/index.ts';
import { deprecationConditions, metadataFor, packageMissing, resolutionHints, resolve, type ResolveInput } from '../resolve/index.ts';
import { isDependencyText, selectedCatalogs, selectedPackageNames } from '../dependencyview/index.ts';
import type { BundleSpill, MemoryPort } from '../bundlepull/index.ts';
import type { DriftTracker } from '../drift/index.ts';
import type { ExtensionState, ValidatedState } from './pipeline-state.ts';
import { NoteMemory, recordEvent, recordPassedOver } from './recorded-events.ts';
import { MESSAGES, setDeprecation, setInstalledFrom, setInstalledUnknown, setProgressingRetrying } from './status.ts';
import { fail } from './failures.ts';
import { validatedStep } from './phases.ts';
import { dependentsHold, resolveChecked, type CheckedResolvePorts } from './resolution.ts';
import { revisionRollingOut } from './rolling-out.ts';

/** What the installed step uses: the release records, and the drift watches of the deployed release. */
export interface InstalledPorts {
  releases: Pick<ReleaseStore, 'history'>;
  drift: Pick<DriftTracker, 'track'>;
  /**
   * The memory release records are read into (decision 0098): its budget, whose leases are held
   * until the reconcile ends (the state's `held`), so that few large records are in memory at
   * once (none: read without waiting); and where the manifests of large records go (item 17: a
   * record whose JSON is longer than `aboveBytes` is read with its manifest's lines into a file
   * under `dir`, kept for the rest of the reconcile, never whole as text in the heap; none:
   * decoded whole).
   */
  records?: MemoryPort;
}

/** What the resolve step uses: the selected catalogs' content, the release-support switch, and the Events. */
export interface ResolvePorts extends CheckedResolvePorts {
  /** Where a failed resolution's Warning Event goes (upstream's message, then what the catalogs offer instead). */
  events: EventRecorder;
  /**
   * BoxcutterRuntime: while a revision rolls out, its bundle is the target and the catalogs are
   * not asked (rolling-out.ts). None: the Helm runtime, which always resolves.
   */
  holdWhileRollingOut?: boolean;
}

/** Reads the release records; the deployed revision is what is installed (and what drift watches cover). */
export function installedStep(ports: InstalledPorts): Step<ExtensionState> {
  return validatedStep('installed', (state) => readInstalled(ports, state));
}

async function readInstalled(ports: InstalledPorts, state: ValidatedState): Promise<StepOutcome> {
  let identities: KubeObject[];
  try {
    const budget = ports.records?.budget;
    const spill = ports.records?.spill;
    const admit =
      budget === undefined
        ? undefined
        : async (bytes: number): Promise<void> => {
            const lease = await budget.acquire(bytes, state.signal);
            state.held.defer(() => lease.release());
          };
    const manifests = spill === undefined ? undefined : linesInFiles(spill, state);
    state.history = await ports.releases.history(state.ce.metadata.name, { signal: state.signal, admit, spill: manifests });
    const installed = deployedRelease(state.history);
    if (installed === undefined) return undefined;
    // Identities only: the record's objects are parsed when the content changes (decision 0098).
    identities = installed.manifest.identities();
    state.installed = installed;
  } catch (err) {
    setInstalledUnknown(state.ce, errorMessage(err), true);
    setProgressingRetrying(state.ce, MESSAGES.retryingInstalledBundle);
    throw err;
  }
  // Watched from here on, so drift is noticed whatever later steps of this reconcile do.
  const { ce, installer } = state;
  const release = { extension: ce.metadata.name, installNamespace: ce.spec.namespace, objects: identities };
  await ports.drift.track({ ...release, serviceAccount: installer.name, serviceAccountNamespace: installer.namespace }, state.signal);
  return undefined;
}

/**
 * Large records' manifests read into files of `spill` (decision 0098 item 17), closed with the
 * rendering's when the reconcile ends (the state's `held`). A file that cannot be made leaves
 * that record's text in memory, as before: the cache directory's trouble costs memory, not the
 * reconcile.
 */
function linesInFiles(spill: BundleSpill, state: ExtensionState): ManifestSpill {
  return {
    aboveBytes: spill.aboveBytes,
    open: () => {
      const file = LineStore.file(spill.dir);
      state.held.defer(() => file.close());
      return file;
    },
  };
}

/**
 * Resolves the bundle from the selected catalogs and sets the deprecation conditions. On
 * failure with nothing installed, or with another version asked for, the error is retried
 * (upstream's decision table). Otherwise the installed bundle stays the target, so it stays
 * applied and repaired: when no catalog matches the selector any more (deleted) as upstream,
 * and also, unlike upstream, when catalogs match but cannot offer it (not served,
 * `Unavailable`, the package gone): then the apply step reports the resolution error after
 * applying, and it is retried with backoff (decision 0048).
 *
 * Under the BoxcutterRuntime (`holdWhileRollingOut`), as upstream: while a revision rolls out the
 * catalogs are not asked, that revision's bundle is the target and the deprecation conditions
 * are Unknown (no catalog data); unlike upstream, once it has failed they are asked again.
 */
export function resolveStep(ports: ResolvePorts): Step<ExtensionState> {
  const reported = new NoteMemory();
  const passed = new NoteMemory();
  return { name: 'resolve', run: (state) => resolveBundle(ports, reported, passed, state) };
}

async function resolveBundle(ports: ResolvePorts, reported: NoteMemory, passed: NoteMemory, state: ExtensionState): Promise<StepOutcome> {
  const src = state.ce.spec.source.catalog;
  const installed = state.installed;
  const channels = src.channels ?? [];
  const rollingOut = ports.holdWhileRollingOut === true ? revisionRollingOut(state.history, installed) : undefined;
  if (rollingOut !== undefined) {
    setDeprecation(state.ce, deprecationConditions(installed?.bundle.name ?? '', null, false, channels));
    state.target = { bundle: rollingOut.bundle };
    state.log.debug({ revision: rollingOut.revision, bundle: rollingOut.bundle.name }, 'revision rolling out, catalogs not asked');
    return undefined;
  }
  const selection = await selectedCatalogs(ports.catalogs, src.selector, src.packageName, state.signal);
  let resolved: ReturnType<typeof resolve> | (typeof selection & { ok: false });
  let request: ResolveInput | undefined;
  if (selection.ok) {
    const self = { name: state.ce.metadata.name ?? '', src };
    ({ request, resolved } = await resolveChecked(ports, self, installed?.bundle, selection.value.inputs, state.signal));
  } else {
    resolved = selection;
  }
  const installedName = installed?.bundle.name ?? '';
  setDeprecation(state.ce, deprecationConditions(installedName, resolved.ok ? resolved.value.deprecation : null, resolved.ok, channels));
  if (resolved.ok) {
    const r = resolved.value;
    const self = { name: state.ce.metadata.name ?? '', packageName: src.packageName };
    const hold = await dependentsHold(ports, self, installed?.bundle, r.bundle, state.signal);
    if (hold !== undefined && installed !== undefined) {
      // Held (decision 0104): the installed bundle stays the target, and the reason is reported after it is applied.
      setInstalledFrom(state.ce, installed);
      state.target = { bundle: installed.bundle };
      await reportFailure(ports, reported, state, request, hold);
      state.resolutionError = new Error(hold);
      ports.dependencies?.gauge?.set(state.ce.metadata.name, true);
      return undefined;
    }
    const meta = metadataFor(r.bundle.name, r.versionRelease, { bundleReleaseSupport: ports.features.bundleReleaseSupport });
    state.target = {
      bundle: {
        package: src.packageName,
        name: r.bundle.name,
        version: meta.version,
        ...(meta.release === undefined ? {} : { release: meta.release }),
        image: r.bundle.image,
      },
      // A resolution is asked only of selected catalogs: the request was made.
      ...(request === undefined ? {} : { resolution: { request, deprecation: r.deprecation } }),
    };
    reported.forget(state.ce);
    ports.dependencies?.gauge?.set(state.ce.metadata.name, false);
    if (r.passedOver.length === 0) passed.forget(state.ce);
    else if (passed.changed(state.ce, r.bundle.name)) recordPassedOver(ports.events, state, r.bundle.name, r.passedOver);
    return undefined;
  }
  // The condition carries upstream's message exactly; the hints go to the Warning Event.
  const err = new Error(resolved.error);
  ports.dependencies?.gauge?.set(state.ce.metadata.name, isDependencyText(resolved.error));
  setInstalledFrom(state.ce, installed);
  const versionChange = (src.version ?? '') !== '' && src.version !== installed?.bundle.version;
  if (installed === undefined || versionChange || !selection.ok) {
    await reportFailure(ports, reported, state, request, resolved.error);
    fail(state, err);
  }
  state.target = { bundle: installed.bundle };
  if (selection.value.matching > 0) {
    await reportFailure(ports, reported, state, request, resolved.error);
    state.resolutionError = err;
  }
  return undefined;
}

/**
 * Records the Warning Event of a failed resolution once per change of its text: upstream's
 * `error`, then what the selected catalogs do offer (package names close to a typo, the
 * package's channels, versions, successors of the installed version:
 * pkg/operator-controller/resolve hints.ts), one per line, after a "no bundles found ...".
 */
async function reportFailure(
  ports: ResolvePorts,
  reported: NoteMemory,
  state: ExtensionState,
  request: ResolveInput | undefined,
  error: string,
): Promise<void> {
  let note = error;
  if (request !== undefined && error.includes('no bundles found for package')) {
    const src = state.ce.spec.source.catalog;
    // Best effort: the names cannot be listed, the Event goes without the close ones.
    const names = packageMissing(request) ? await selectedPackageNames(ports.catalogs, src.selector, state.signal).catch(() => []) : [];
    note = [error, ...resolutionHints(request, names)].join('\n');
  }
  if (reported.changed(state.ce, note)) recordEvent(ports.events, state, 'ResolutionFailed', note);
}
