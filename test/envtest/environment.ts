/**
 * The shared test environment: one control plane and two registries (anonymous and basic
 * auth), started together; with `node`, the control plane runs a real node that pulls from the
 * anonymous registry (decision 0101). Used by the vitest global setup and by `main.ts up`.
 */
import { randomBytes } from 'node:crypto';
import {
  startControlPlane,
  startRegistry,
  type ControlPlane,
  type ControlPlaneInfo,
  type EnvtestBinaries,
  type NodeBinaries,
  type Registry,
  type RegistryInfo,
} from '../../pkg/olmv1/localstack/index.ts';

/** Plain-data description of a running environment (what tests receive). */
export interface EnvironmentInfo {
  controlPlane: ControlPlaneInfo;
  registries: {
    /** No authentication. */
    anonymous: RegistryInfo;
    /** HTTP basic authentication; `username`/`password` are set. */
    basicAuth: RegistryInfo;
  };
  binaries: EnvtestBinaries;
}

/** A running environment. */
export interface Environment {
  readonly info: EnvironmentInfo;
  readonly controlPlane: ControlPlane;
  /** Stops every server and removes every temp directory. Idempotent. */
  stop(): Promise<void>;
}

/** User name of the basic-auth registry (the password is random per environment). */
export const REGISTRY_USERNAME = 'envtest';

/**
 * Starts the control plane and both registries concurrently. If any of them fails, the
 * others are stopped before the first error is thrown.
 */
export async function startEnvironment(binaries: EnvtestBinaries, options: { tmpRoot?: string; node?: NodeBinaries } = {}): Promise<Environment> {
  const tmp = options.tmpRoot !== undefined ? { tmpRoot: options.tmpRoot } : {};
  const password = randomBytes(12).toString('hex');
  const registries = [
    startRegistry({ binaries, ...tmp }),
    startRegistry({ binaries, htpasswd: { username: REGISTRY_USERNAME, password }, ...tmp }),
  ] as const;
  // With a node, the registries come first: the node pulls from the anonymous one over plain HTTP.
  const nodeBinaries = options.node;
  const controlPlane =
    nodeBinaries === undefined
      ? startControlPlane({ binaries, ...tmp })
      : registries[0].then((anonymous) =>
          startControlPlane({ binaries: { ...binaries, node: nodeBinaries }, node: { plainHttpRegistries: [anonymous.info.host] }, ...tmp }),
        );
  const results = await Promise.allSettled([controlPlane, ...registries]);
  const [cp, anonymous, basicAuth] = results;
  if (cp.status === 'rejected' || anonymous.status === 'rejected' || basicAuth.status === 'rejected') {
    const started: Array<ControlPlane | Registry> = [];
    const errors: unknown[] = [];
    for (const r of results) {
      if (r.status === 'fulfilled') started.push(r.value);
      else errors.push(r.reason);
    }
    await Promise.all(started.map((s) => s.stop()));
    throw errors[0];
  }
  const servers = [cp.value, anonymous.value, basicAuth.value];
  return {
    info: {
      controlPlane: cp.value.info,
      registries: { anonymous: anonymous.value.info, basicAuth: basicAuth.value.info },
      binaries,
    },
    controlPlane: cp.value,
    stop: async () => {
      await Promise.all(servers.map((s) => s.stop()));
    },
  };
}
