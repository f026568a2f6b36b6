/**
 * How every `olmv1` command that talks to a cluster finds it: `--kubeconfig FILE`, else
 * `$KUBECONFIG` merged as kubectl merges it (an error when none of its files exists, as in
 * kubectl), else the kubeconfig of an `olmv1 up` running in this directory, else
 * `~/.kube/config`; `--context` overrides the current context of the one found.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { connect, type KubeConfigSource, type KubeContext } from '../../pkg/shared/kube/index.ts';
import { CommandError } from './render.ts';
import { readRunningStack } from './up-state.ts';

/** What the resolution looks at besides the flags. */
export interface KubeconfigLookup {
  /** `$KUBECONFIG` as the process has it; undefined or '' when unset. */
  kubeconfigEnv: string | undefined;
  /** `~/.kube/config` spelled out, or undefined when HOME is not set. */
  homeKubeconfig: string | undefined;
  /** The directory whose `.olmv1/` a running `olmv1 up` uses (the working directory). */
  workDir: string;
  /** The kubeconfig of the `olmv1 up` running in `workDir`, if one is running. */
  runningUp(): Promise<string | undefined>;
  /** Whether `path` exists. */
  exists(path: string): boolean;
}

/** The flags of cluster access, for parseCommandLine. */
export const CLUSTER_FLAGS = { kubeconfig: { type: 'string' }, context: { type: 'string' } } as const;

/** Help lines of {@link CLUSTER_FLAGS}, aligned with the other flags of a usage text. */
export const CLUSTER_FLAGS_HELP = `  --kubeconfig FILE          cluster to talk to (default: $KUBECONFIG, else the olmv1 up
                             running in this directory, else ~/.kube/config)
  --context NAME             kubeconfig context to use instead of its current context`;

/** The values of {@link CLUSTER_FLAGS}. */
export interface ClusterFlags {
  kubeconfig?: string | undefined;
  context?: string | undefined;
}

/**
 * The cluster flags of parsed `values`.
 * @throws CommandError (exit 2, with `usage`) when one is given empty.
 */
export function clusterFlags(values: ClusterFlags, usage: string): ClusterFlags {
  for (const name of ['kubeconfig', 'context'] as const) {
    if (values[name] === '') throw new CommandError(`--${name} must not be empty\n${usage}`, 2);
  }
  return { kubeconfig: values.kubeconfig, context: values.context };
}

/** A kubeconfig found, with the step that found it (for error texts). */
interface KubeconfigChoice {
  source: Extract<KubeConfigSource, { kind: 'file' | 'files' }>;
  /** `--kubeconfig`, `$KUBECONFIG`, `the running olmv1 up` or `~/.kube/config`. */
  from: string;
}

/**
 * Applies the resolution order. Expected failures are values: `error` says what was searched
 * and how to choose (it names --kubeconfig).
 */
export async function chooseKubeconfig(
  flags: ClusterFlags,
  lookup: KubeconfigLookup,
): Promise<{ ok: true; value: KubeconfigChoice } | { ok: false; error: string }> {
  const context = flags.context === undefined ? {} : { context: flags.context };
  if (flags.kubeconfig !== undefined)
    return { ok: true, value: { source: { kind: 'file', path: flags.kubeconfig, ...context }, from: '--kubeconfig' } };
  const listed = (lookup.kubeconfigEnv ?? '').split(':').filter((p) => p !== '');
  if (listed.length > 0) {
    if (!listed.some((p) => lookup.exists(p))) {
      return {
        ok: false,
        error: `no kubeconfig found: none of the files in $KUBECONFIG exists (${listed.join(', ')}); fix KUBECONFIG or pass --kubeconfig FILE`,
      };
    }
    return { ok: true, value: { source: { kind: 'files', paths: listed, ...context }, from: '$KUBECONFIG' } };
  }
  const up = await lookup.runningUp();
  if (up !== undefined) return { ok: true, value: { source: { kind: 'file', path: up, ...context }, from: 'the running olmv1 up' } };
  const home = lookup.homeKubeconfig;
  if (home !== undefined && lookup.exists(home))
    return { ok: true, value: { source: { kind: 'file', path: home, ...context }, from: '~/.kube/config' } };
  return {
    ok: false,
    error: [
      'no kubeconfig found; searched:',
      '  --kubeconfig FILE         not given',
      '  $KUBECONFIG               not set',
      `  a running olmv1 up        none in ${lookup.workDir} (${join(lookup.workDir, '.olmv1', 'stack.json')})`,
      `  ~/.kube/config            ${home === undefined ? 'HOME is not set' : `${home} does not exist`}`,
      'Pass --kubeconfig FILE, set KUBECONFIG, or start "olmv1 up" in this directory.',
    ].join('\n'),
  };
}

/**
 * Finds the kubeconfig and connects (no request is made yet).
 * @throws CommandError with `exitCode` when no kubeconfig is found or it cannot be used; the
 *   text names the file and where it came from.
 */
export async function connectCluster(flags: ClusterFlags, lookup: KubeconfigLookup, exitCode: number): Promise<KubeContext> {
  const choice = await chooseKubeconfig(flags, lookup);
  if (!choice.ok) throw new CommandError(choice.error, exitCode);
  try {
    return await connect(choice.value.source);
  } catch (e) {
    const hint = choice.value.from === '--kubeconfig' ? '' : ` (found through ${choice.value.from}; pass --kubeconfig FILE to use another)`;
    throw new CommandError(`${errorMessage(e)}${hint}`, exitCode);
  }
}

/** Runs `body` on the connection `connecting` gives, and closes it. */
export async function withCluster<K extends Pick<KubeContext, 'close'>, T>(connecting: Promise<K>, body: (kube: K) => Promise<T>): Promise<T> {
  const kube = await connecting;
  try {
    return await body(kube);
  } finally {
    kube.close();
  }
}

/** The lookup of a process: its KUBECONFIG and HOME (read by the caller), files and `.olmv1/` in `workDir`. */
export function createKubeconfigLookup(env: { KUBECONFIG?: string | undefined; HOME?: string | undefined }, workDir: string): KubeconfigLookup {
  return {
    kubeconfigEnv: env.KUBECONFIG,
    homeKubeconfig: env.HOME === undefined || env.HOME === '' ? undefined : join(env.HOME, '.kube', 'config'),
    workDir,
    runningUp: async () => (await readRunningStack(join(workDir, '.olmv1')))?.kubeconfig,
    exists: (path) => existsSync(path),
  };
}
