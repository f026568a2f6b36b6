/**
 * TEST HOOK, not a feature: the `release-write` and `object-write` points of
 * `OLMV1_TEST_PAUSE_AT` (test-pause.ts), as decorators of the clients control.ts hands the
 * reconciler, composed only when a pause is asked for. The extension of a write is the record
 * Secret's name, or the object's owner-name label (for a delete, the live object's).
 */
import { OWNER_NAME_LABEL } from '../../pkg/shared/api/index.ts';
import type { KubeClient, KubeObject, ObjectRef, ScopedClientFactory } from '../../pkg/shared/kube/index.ts';
import type { PauseHook } from './test-pause.ts';

/** A write a client is about to send. */
interface Write {
  method: 'create' | 'update' | 'patch' | 'apply' | 'delete';
  /** The object sent (create, update, apply) or the reference written to (patch, delete). */
  target: KubeObject | ObjectRef;
  /** True for a server-side dry run: nothing is written. */
  dryRun: boolean;
}

const WRITES: ReadonlySet<string | symbol> = new Set(['create', 'update', 'patch', 'apply', 'delete']);

/**
 * `client` with `before` awaited before each of its writes (create, update, patch, apply,
 * delete); every other member is the client's own.
 */
function beforeWrites(client: KubeClient, before: (write: Write) => Promise<void>): KubeClient {
  return new Proxy(client, {
    get(target, prop) {
      const member: unknown = Reflect.get(target, prop, target);
      if (typeof member !== 'function') return member;
      if (!WRITES.has(prop)) return member.bind(target);
      return async (...args: unknown[]): Promise<unknown> => {
        const options = (prop === 'patch' ? args[3] : args[1]) as { dryRun?: boolean } | undefined;
        await before({ method: prop as Write['method'], target: args[0] as Write['target'], dryRun: options?.dryRun === true });
        return member.apply(target, args) as unknown;
      };
    },
  });
}

/** The installer clients the reconciler takes (reconcilers.ts). */
type InstallerClients = Pick<ScopedClientFactory, 'forServiceAccount' | 'forget'>;

const RECORD_NAME = /^sh\.helm\.release\.v1\.(.+)\.v[1-9][0-9]*(?:-[a-z1-6]{13})?$/;

function nameOf(target: KubeObject | ObjectRef): string | undefined {
  return 'metadata' in target ? target.metadata.name : target.name;
}

/** The release store's client, pausing at `release-write` before each write of an extension's record Secrets. */
export function pausingReleaseWrites(client: KubeClient, pause: PauseHook): KubeClient {
  return beforeWrites(client, async (write) => {
    const extension = RECORD_NAME.exec(nameOf(write.target) ?? '')?.[1];
    if (extension !== undefined && !write.dryRun) await pause('release-write', extension);
  });
}

/** The installer clients of `scoped`, pausing at `object-write` before each apply or delete of an extension's object. */
export function pausingObjectWrites(scoped: InstallerClients, pause: PauseHook): InstallerClients {
  return {
    forServiceAccount(namespace, serviceAccount) {
      const client = scoped.forServiceAccount(namespace, serviceAccount);
      return beforeWrites(client, async (write) => {
        if (write.dryRun || (write.method !== 'apply' && write.method !== 'delete')) return;
        const obj = 'metadata' in write.target ? write.target : await client.get(write.target).catch(() => undefined);
        const extension = obj?.metadata.labels?.[OWNER_NAME_LABEL];
        if (extension !== undefined) await pause('object-write', extension);
      });
    },
    forget: (namespace, serviceAccount) => scoped.forget(namespace, serviceAccount),
  };
}
