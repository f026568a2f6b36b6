/**
 * Changing a component's Deployment on the node for one scenario, as upstream's e2e steps do:
 * the `manager` container's args or env replaced by a JSON patch, the rollout awaited until every
 * Pod of the Deployment runs the new template and is Ready (the old ones gone, not only
 * terminating), and the original args and env put back afterwards, that rollout awaited too, so
 * that scenarios do not see each other's settings.
 */
import { vi } from 'vitest';
import { SYSTEM_NAMESPACE, type Kubectl } from '../../pkg/olmv1/in-cluster/index.ts';
import { condition, kube, type Obj } from './on-node.ts';

/** A container's environment variable as the API returns it. */
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: object;
}

/** What a scenario changes in the `manager` container. */
export interface ManagerChange {
  args?: string[];
  env?: EnvVar[];
}

interface Container {
  name: string;
  args?: string[];
  env?: EnvVar[];
}

const containersOf = (o: Obj | undefined): Container[] =>
  ((o?.spec?.['template'] as { spec?: { containers?: Container[] } } | undefined)?.spec?.containers ??
    (o?.spec?.['containers'] as Container[] | undefined) ??
    []) as Container[];

/** What identifies a container's settings (env values sourced elsewhere by their name only). */
const settings = (c: Container | undefined): string =>
  JSON.stringify({ args: c?.args ?? [], env: (c?.env ?? []).map((e) => `${e.name}=${e.value ?? '(valueFrom)'}`) });

/** Rollouts of the Deployments in `ns` (default the product's namespace). */
export function deploymentRollouts(kubectl: Kubectl, ns = SYSTEM_NAMESPACE) {
  const k = kube(kubectl);

  /** The `manager` container of `deployment`: its index, args and env. */
  async function manager(deployment: string): Promise<{ index: number; args: string[]; env: EnvVar[] }> {
    const containers = containersOf(await k.get(['deployment', '-n', ns, deployment]));
    const index = containers.findIndex((c) => c.name === 'manager');
    if (index < 0) throw new Error(`deployment ${ns}/${deployment} has no container named manager`);
    return { index, args: containers[index]?.args ?? [], env: containers[index]?.env ?? [] };
  }

  /**
   * How far the rollout of `deployment` is: `rolled out` once the controller observed the
   * latest generation and exactly `replicas` Pods exist, none being deleted, each Ready and
   * running the template's args and env; otherwise what is still missing.
   */
  async function rolloutState(deployment: string): Promise<string> {
    const d = await k.get(['deployment', '-n', ns, deployment]);
    const spec = d.spec as { replicas?: number; selector: { matchLabels: Record<string, string> } };
    const status = (d.status ?? {}) as { observedGeneration?: number; updatedReplicas?: number; readyReplicas?: number };
    const replicas = spec.replicas ?? 1;
    const generation = (d.metadata as { generation?: number }).generation ?? 0;
    if ((status.observedGeneration ?? 0) < generation) return `generation ${generation} not observed yet`;
    if (status.updatedReplicas !== replicas || status.readyReplicas !== replicas)
      return `${status.updatedReplicas ?? 0} updated, ${status.readyReplicas ?? 0} ready of ${replicas}`;
    const want = settings(containersOf(d).find((c) => c.name === 'manager'));
    const selector = Object.entries(spec.selector.matchLabels)
      .map(([key, value]) => `${key}=${value}`)
      .join(',');
    const pods = await k.list(['pods', '-n', ns, '-l', selector]);
    const current = pods.filter(
      (p) =>
        p.metadata.deletionTimestamp === undefined &&
        condition(p, 'Ready') === 'True' &&
        settings(containersOf(p).find((c) => c.name === 'manager')) === want,
    );
    if (pods.length !== replicas || current.length !== replicas)
      return `${current.length} of ${pods.length} Pods current and Ready, want ${replicas}`;
    return 'rolled out';
  }

  /** Waits until the rollout of `deployment` is complete (see rolloutState). */
  async function waitRolledOut(deployment: string, timeoutMs = 240_000): Promise<void> {
    // vi.waitFor, not expect.poll: hooks wait too (a describe's afterAll puts the original args back).
    await vi.waitFor(
      async () => {
        const state = await rolloutState(deployment);
        if (state !== 'rolled out') throw new Error(`rollout of ${ns}/${deployment}: ${state}`);
      },
      { timeout: timeoutMs, interval: 1000 },
    );
  }

  /** Replaces the `manager` container's args and/or env and waits for the rollout. */
  async function patch(deployment: string, change: ManagerChange): Promise<void> {
    const { index } = await manager(deployment);
    const ops = Object.entries(change).map(([field, value]) => ({ op: 'add', path: `/spec/template/spec/containers/${index}/${field}`, value }));
    await kubectl(['patch', 'deployment', '-n', ns, deployment, '--type=json', '-p', JSON.stringify(ops)]);
    await waitRolledOut(deployment);
  }

  /**
   * Runs `body` with `deployment` changed by `change(original)`, then puts the original args
   * and env back and waits for that rollout, whether `body` passed or not.
   */
  async function withChanged(
    deployment: string,
    change: (original: { args: string[]; env: EnvVar[] }) => ManagerChange,
    body: () => Promise<void>,
  ): Promise<void> {
    const original = await manager(deployment);
    await patch(deployment, change(original));
    try {
      await body();
    } finally {
      await patch(deployment, { args: original.args, env: original.env });
    }
  }

  return { manager, rolloutState, waitRolledOut, patch, withChanged };
}

/** `args` without upstream's TLS profile flags, then `--tls-profile=custom` with the given settings. */
export function customTlsArgs(args: readonly string[], o: { version: string; ciphers?: string; curves?: string }): string[] {
  const kept = args.filter((a) => !/^--tls-(profile|custom-version|custom-ciphers|custom-curves)=/.test(a));
  return [
    ...kept,
    '--tls-profile=custom',
    `--tls-custom-version=${o.version}`,
    ...(o.ciphers === undefined ? [] : [`--tls-custom-ciphers=${o.ciphers}`]),
    ...(o.curves === undefined ? [] : [`--tls-custom-curves=${o.curves}`]),
  ];
}

/** `env` with `name` set to `value` (replaced where present, else appended). */
export function withEnv(env: readonly EnvVar[], name: string, value: string): EnvVar[] {
  return env.some((e) => e.name === name) ? env.map((e) => (e.name === name ? { name, value } : e)) : [...env, { name, value }];
}
