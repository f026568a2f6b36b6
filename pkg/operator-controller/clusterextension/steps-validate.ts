/**
 * The validate step: the extension can be installed at all (a name that can be a release name,
 * an installer), and its installer's namespace and ServiceAccount exist. A missing one is a
 * wait only a person can end: the step returns POLL.
 */
import { RELEASE_NAME_MESSAGE } from '../../shared/api/index.ts';
import { POLL, type Step, type StepOutcome } from '../../shared/controller/index.ts';
import { TerminalError, errorMessage } from '../../shared/errors/index.ts';
import { isNotFound, type EventRecorder, type Informer, type KubeClient, type KubeObject, type ObjectRef } from '../../shared/kube/index.ts';
import { isReleaseName } from '../release/index.ts';
import { noInstallerMessage, type Installer } from './installer.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { NoteMemory, recordEvent } from './recorded-events.ts';
import { setInstalledUnknown, setProgressingBlocked, setProgressingRetrying } from './status.ts';
import { fail } from './failures.ts';

/** Prefix of validation failures (upstream v1.9-v1.10). */
const VALIDATION_PREFIX = 'operation cannot proceed due to the following validation error(s): ';

/** What the validate step uses: operator-controller's own client, to read namespaces and ServiceAccounts, and the Events recorder. */
export interface ValidatePorts {
  client: Pick<KubeClient, 'get'>;
  /** Where the commands that create what is missing go (a Warning Event, once per change). */
  events: EventRecorder;
  /**
   * The cluster's ServiceAccounts by `namespace/name` (installer-accounts.ts): one held there is
   * not read; one it lacks is read live (it may be newer than the cache). None: always read.
   */
  accounts?: Pick<Informer<KubeObject>, 'get'>;
}

/**
 * The namespace and ServiceAccount must exist (read with the controller's identity). A missing
 * one is a wait (POLL): Installed Unknown, Progressing Retrying with upstream v1.10's message
 * (`service account "<sa>" not found in namespace "<ns>"`, whichever of the two is missing, as
 * its GET of the ServiceAccount answers); the commands that create what is missing go to an
 * InstallerMissing Warning Event, once per change of its text. The ServiceAccount is read first:
 * it exists in every reconcile but the first few, and only its absence needs the namespace read
 * that tells which of the two is missing. With `accounts`, a ServiceAccount it holds is not read.
 */
export function validateStep(ports: ValidatePorts): Step<ExtensionState> {
  const reported = new NoteMemory();
  return { name: 'validate', run: (state) => validate(ports, reported, state) };
}

async function validate(ports: ValidatePorts, reported: NoteMemory, state: ExtensionState): Promise<StepOutcome> {
  // Admitted before the CRD refused such names: it can never have a release; say so, once.
  const name = state.ce.metadata.name;
  if (!isReleaseName(name)) {
    const message = `${VALIDATION_PREFIX}invalid ClusterExtension name ${JSON.stringify(name)}: ${RELEASE_NAME_MESSAGE}; create it again under a valid name (deleting this one removes nothing but it)`;
    setInstalledUnknown(state.ce, message, false);
    fail(state, new TerminalError(message, { reason: 'Blocked' }));
  }
  const installer = state.installer;
  if (installer === undefined) {
    // Only a new deployment of operator-controller or a spec change can end this: no polling.
    const message = VALIDATION_PREFIX + noInstallerMessage(state.ce.spec.namespace);
    setInstalledUnknown(state.ce, message, false);
    setProgressingBlocked(state.ce, message);
    return {};
  }
  const problem = installer.isDefault ? await defaultInstallerProblem(ports, state, installer) : await serviceAccountProblem(ports, state, installer);
  if (problem === undefined) {
    reported.changed(state.ce, '');
    return undefined;
  }
  const message = VALIDATION_PREFIX + problem.condition;
  setInstalledUnknown(state.ce, message, false);
  setProgressingRetrying(state.ce, message);
  if (problem.advice !== undefined && reported.changed(state.ce, problem.advice))
    recordEvent(ports.events, state, 'InstallerMissing', problem.advice);
  return POLL;
}

/**
 * What is missing: the condition's text (upstream's where it has one) and, apart, the Event's
 * note: that text, then on a line of its own what creates it (as every advice Event's note, it
 * starts with what the condition's first line ends with; `olmv1 status` matches them so).
 */
interface Problem {
  condition: string;
  advice?: string;
}

/**
 * What is missing of the extension's own ServiceAccount or its namespace (the same), or
 * undefined. The ServiceAccount is read first: it exists in every reconcile but the first few,
 * and only its absence needs the namespace read that tells which of the two is missing.
 */
async function serviceAccountProblem(ports: ValidatePorts, state: ExtensionState, sa: Installer): Promise<Problem | undefined> {
  const ns = sa.namespace;
  const create = `kubectl create serviceaccount ${sa.name} -n ${ns}`;
  const account = await lookupAccount(ports, state, sa);
  if (account !== 'missing') return account === undefined ? undefined : { condition: `error getting service account: ${account.error}` };
  const condition = `service account ${JSON.stringify(sa.name)} not found in namespace ${JSON.stringify(ns)}`;
  const namespace = await lookup(ports, state, { apiVersion: 'v1', kind: 'Namespace', name: ns });
  if (namespace === undefined) return { condition, advice: `${condition}\ncreate it (${create}) and grant it the RBAC that "olmv1 rbac" prints` };
  if (namespace !== 'missing') return { condition: `error getting service account: ${namespace.error}` };
  const createBoth = `create it (kubectl create namespace ${ns}), then the service account (${create}) with the RBAC that "olmv1 rbac" prints`;
  return { condition, advice: `${condition}\nnamespace ${JSON.stringify(ns)} not found: ${createBoth}` };
}

/** What is missing for an install as the default install ServiceAccount: the install namespace, or that ServiceAccount. */
async function defaultInstallerProblem(ports: ValidatePorts, state: ExtensionState, sa: Installer): Promise<Problem | undefined> {
  const ns = state.ce.spec.namespace;
  const namespace = await lookup(ports, state, { apiVersion: 'v1', kind: 'Namespace', name: ns });
  if (namespace === 'missing') return { condition: `namespace ${JSON.stringify(ns)} not found: create it (kubectl create namespace ${ns})` };
  if (namespace !== undefined) return { condition: `error getting namespace: ${namespace.error}` };
  const account = await lookupAccount(ports, state, sa);
  if (account === undefined) return undefined;
  if (account !== 'missing') return { condition: `error getting service account: ${account.error}` };
  const what = `the default install service account ${sa.namespace}/${sa.name} (--default-install-service-account)`;
  return { condition: `${what} does not exist: create it with the RBAC the extensions need, or set spec.serviceAccount` };
}

/** As `lookup`, for a ServiceAccount: from `accounts` when it holds it, else read. */
function lookupAccount(ports: ValidatePorts, state: ExtensionState, sa: Installer): ReturnType<typeof lookup> {
  if (ports.accounts?.get(`${sa.namespace}/${sa.name}`) !== undefined) return Promise.resolve(undefined);
  return lookup(ports, state, { apiVersion: 'v1', kind: 'ServiceAccount', namespace: sa.namespace, name: sa.name });
}

/** Reads `ref` with the controller's identity: undefined when it exists, `missing` when it is not found, else the read's error. */
async function lookup(ports: ValidatePorts, state: ExtensionState, ref: ObjectRef): Promise<'missing' | { error: string } | undefined> {
  try {
    await ports.client.get(ref, { signal: state.signal });
    return undefined;
  } catch (err) {
    return isNotFound(err) ? 'missing' : { error: errorMessage(err) };
  }
}
