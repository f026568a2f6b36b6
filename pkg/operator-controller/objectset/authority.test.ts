import { describe, expect, it } from 'vitest';
import type { ClusterObjectSet } from '../../shared/api/index.ts';
import { parseWithOwners, revisionAuthority, sameExtensionController, userRevisionRefusal, type KnownExtension } from './authority.ts';
import { extensionOwnerRef } from '../../../test/support/revision-fixtures.ts';

const OWNER = 'olm.operatorframework.io/owner-name';

/** A revision as read: `owners` its owner references, `label` its owner-name label. */
function revision(owners: object[] | undefined, label?: string): ClusterObjectSet {
  const parsed = parseWithOwners({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterObjectSet',
    metadata: {
      name: 'r',
      uid: 'r-uid',
      ...(label === undefined ? {} : { labels: { [OWNER]: label } }),
      ...(owners === undefined ? {} : { ownerReferences: owners }),
    },
    spec: { lifecycleState: 'Active', revision: 1, collisionProtection: 'Prevent', phases: [] },
  });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

const controllerRef = extensionOwnerRef;

const known: Record<string, KnownExtension> = { ext: { uid: 'ext-uid', deleting: false }, gone: { uid: 'gone-uid', deleting: true } };
const extensionOf = (name: string): KnownExtension | undefined => known[name];

describe('revisionAuthority', () => {
  it('a revision its extension made (controller reference with the uid, label naming it) is written as that extension', () => {
    expect(revisionAuthority(revision([controllerRef('ext', 'ext-uid')], 'ext'), extensionOf)).toEqual({ kind: 'extension', extension: 'ext' });
  });

  it('writes nothing of a revision whose extension is being deleted', () => {
    expect(revisionAuthority(revision([controllerRef('gone', 'gone-uid')], 'gone'), extensionOf)).toEqual({ kind: 'held', extension: 'gone' });
  });

  it.each([
    ['no owner reference, no label', undefined, undefined, 'it has no controller owner reference to a ClusterExtension'],
    ['only the owner label', undefined, 'ext', 'it has no controller owner reference to a ClusterExtension'],
    [
      'a reference that is not the controller',
      [controllerRef('ext', 'ext-uid', { controller: false })],
      'ext',
      'it has no controller owner reference',
    ],
    [
      'another kind as controller',
      [{ ...controllerRef('ext', 'ext-uid'), kind: 'ConfigMap', apiVersion: 'v1' }],
      'ext',
      'no controller owner reference',
    ],
    ['the extension with another uid', [controllerRef('ext', 'forged')], 'ext', 'names no existing ClusterExtension ("ext", uid forged)'],
    ['an extension that does not exist', [controllerRef('nope', 'x')], 'nope', 'names no existing ClusterExtension ("nope", uid x)'],
    [
      'the label naming another extension than the controller',
      [controllerRef('ext', 'ext-uid')],
      'other',
      'its label olm.operatorframework.io/owner-name ("other") does not name its controller, ClusterExtension "ext"',
    ],
    ['a controller without the label', [controllerRef('ext', 'ext-uid')], undefined, '("") does not name its controller'],
  ])('%s: a user’s revision', (_, owners, label, why) => {
    const authority = revisionAuthority(revision(owners, label), extensionOf);
    expect(authority.kind).toBe('user');
    expect(authority.kind === 'user' ? authority.why : '').toContain(why);
  });

  it('the refusal says how to configure an identity', () => {
    expect(userRevisionRefusal(revision(undefined), 'it has no controller owner reference to a ClusterExtension')).toBe(
      'ClusterObjectSet "r" was not made by operator-controller for a ClusterExtension (it has no controller owner reference to a ClusterExtension), ' +
        'and no identity is configured for revisions users make: nothing of it is applied; start operator-controller with ' +
        '--user-revision-service-account=NAMESPACE/NAME to write such revisions as that ServiceAccount, with its permissions only',
    );
  });
});

describe('sameExtensionController', () => {
  it('pairs revisions of one extension (name and uid), and revisions without one; never a labelled stranger', () => {
    const own = revision([controllerRef('ext', 'ext-uid')], 'ext');
    expect(sameExtensionController(own, revision([controllerRef('ext', 'ext-uid')], 'ext'))).toBe(true);
    expect(sameExtensionController(own, revision(undefined, 'ext'))).toBe(false);
    expect(sameExtensionController(own, revision([controllerRef('ext', 'forged')], 'ext'))).toBe(false);
    expect(sameExtensionController(revision(undefined, 'ext'), revision(undefined, 'ext'))).toBe(true);
  });
});
