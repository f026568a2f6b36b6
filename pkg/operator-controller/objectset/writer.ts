/**
 * The client a revision's objects are written with, by authority.ts's decision (decision 0126):
 * its extension's installer, the identity configured for user-made revisions, or none (the
 * revision is refused, or held while its extension is deleted). Every write is guarded and
 * tracked (writes.ts).
 */
import { OWNER_NAME_LABEL, type ClusterObjectSet } from '../../shared/api/index.ts';
import type { KubeClient } from '../../shared/kube/index.ts';
import { revisionAuthority, userRevisionRefusal, type KnownExtension } from './authority.ts';
import { guardedClient, type RevisionWrites } from './writes.ts';

/** Who writes a revision, decided at the start of each reconcile. */
export type RevisionWriter =
  /**
   * Write with `client`; `mayWrite` turns false once the revision may no longer write (its
   * extension is being deleted). `extension`: the extension that made it, proven (none: a user's
   * revision, whose owner label is not trusted).
   */
  | {
      client: KubeClient;
      mayWrite: () => boolean;
      extension?: string;
      /** Its installer ServiceAccount's `namespace/name`, when known: the identity its objects' watches are shared under (decision 0156). */
      identity?: string;
    }
  /** Its extension is being deleted: nothing is written, nothing reported. */
  | { held: string }
  /** Nobody may write it: nothing is written, `refused` is reported. */
  | { refused: string };

/** Gives the writer of a revision (upstream's revision engine factory, with the identity checked). */
export type WriterFor = (cos: ClusterObjectSet) => RevisionWriter | Promise<RevisionWriter>;

/** What revisionWriters decides with. */
interface WriterPorts {
  /** The ClusterExtension informer's knowledge of an extension. */
  extensionOf: (name: string) => KnownExtension | undefined;
  /** The client of the installer of `extension`, which made `cos` (throws when it has none: retried). */
  installerClient: (extension: string, cos: ClusterObjectSet) => KubeClient | Promise<KubeClient>;
  /** The `namespace/name` of that installer; none: its watches are shared with nobody. */
  installerIdentity?: ((extension: string, cos: ClusterObjectSet) => string) | undefined;
  /** The client of the identity configured for user-made revisions; none: they are refused. */
  userClient?: (() => KubeClient) | undefined;
  writes: RevisionWrites;
}

/** The tracking key of a user-made revision's writes (no extension name has a slash). */
function userKey(cos: ClusterObjectSet): string {
  return `user/${cos.metadata.name}`;
}

/** The WriterFor of operator-controller: see the module comment. */
export function revisionWriters(p: WriterPorts): WriterFor {
  return async (cos) => {
    const authority = revisionAuthority(cos, p.extensionOf);
    if (authority.kind === 'held') return { held: authority.extension };
    if (authority.kind === 'user') {
      if (p.userClient === undefined) return { refused: userRevisionRefusal(cos, authority.why) };
      // A user's revision stays a user's: its writes need no other check.
      return { client: guardedClient(p.userClient(), userKey(cos), p.writes, () => true), mayWrite: () => true };
    }
    const mayWrite = (): boolean => revisionAuthority(cos, p.extensionOf).kind === 'extension';
    const client = await p.installerClient(authority.extension, cos);
    const identity = p.installerIdentity?.(authority.extension, cos);
    return {
      client: guardedClient(client, authority.extension, p.writes, mayWrite),
      mayWrite,
      extension: authority.extension,
      ...(identity === undefined ? {} : { identity }),
    };
  };
}

/** Every revision written with `client`, its owner label trusted, unchecked: for tests of the controller's other behaviour. */
export function everyRevisionAs(client: KubeClient): WriterFor {
  return (cos) => {
    const extension = cos.metadata.labels?.[OWNER_NAME_LABEL];
    return { client, mayWrite: () => true, ...(extension === undefined ? {} : { extension }) };
  };
}
