import { describe, expect, it } from 'vitest';
import type { Release } from '../release/index.ts';
import { rev } from '../../../test/support/release-revisions.ts';
import { chooseRollbackTarget } from './target.ts';

/** Newest first, as the store returns them. */
const newestFirst = (...rs: Release[]): Release[] => [...rs].sort((a, b) => b.revision - a.revision);

describe('chooseRollbackTarget', () => {
  it('defaults to the newest earlier superseded revision with another bundle, and says it chose', () => {
    const h = newestFirst(rev(1, 'superseded', '1.0.0'), rev(2, 'superseded', '1.1.0'), rev(3, 'deployed', '1.2.0'));
    const r = chooseRollbackTarget('foo', h);
    expect(r.ok && [r.value.deployed.revision, r.value.target.revision, r.value.chosen]).toEqual([3, 2, true]);
  });

  it('skips failed revisions, revisions of the deployed bundle and revisions that recorded no bundle', () => {
    const h = newestFirst(
      rev(1, 'superseded', '1.0.0'),
      rev(2, 'superseded', '', { bundle: { package: '', name: '', version: '', image: '' } }),
      rev(3, 'failed', '1.1.0'),
      rev(4, 'superseded', '1.2.0'),
      rev(5, 'deployed', '1.2.0'),
    );
    const r = chooseRollbackTarget('foo', h);
    expect(r.ok && r.value.target.revision).toBe(1);
  });

  it('never picks a revision newer than the deployed one (a failed upgrade after it)', () => {
    const h = newestFirst(rev(1, 'superseded', '1.0.0'), rev(2, 'deployed', '1.1.0'), rev(3, 'failed', '2.0.0'));
    const r = chooseRollbackTarget('foo', h);
    expect(r.ok && r.value.target.revision).toBe(1);
  });

  it('takes an explicit revision, also a newer or a failed one', () => {
    const h = newestFirst(rev(1, 'superseded', '1.0.0'), rev(2, 'deployed', '1.1.0'), rev(3, 'failed', '2.0.0'));
    const r = chooseRollbackTarget('foo', h, 3);
    expect(r.ok && [r.value.target.revision, r.value.chosen]).toEqual([3, false]);
  });

  it.each([
    [[], undefined, '"foo" has no release records: nothing was installed'],
    [[rev(1, 'failed', '1.0.0')], undefined, '"foo" has no deployed revision: there is no installed release to roll back from'],
    [[rev(1, 'deployed', '1.0.0')], undefined, '"foo" has no earlier revision with another bundle than the deployed revision 1 (foo.v1.0.0)'],
    [[rev(2, 'deployed', '1.0.0'), rev(1, 'failed', '0.9.0')], undefined, 'no earlier revision with another bundle'],
    [[rev(2, 'deployed', '1.1.0'), rev(1, 'superseded', '1.0.0')], 7, 'revision 7 of "foo" does not exist'],
    [[rev(2, 'deployed', '1.1.0'), rev(1, 'superseded', '1.0.0')], 2, 'revision 2 of "foo" is the deployed revision'],
    [
      [rev(2, 'deployed', '1.1.0'), rev(1, 'superseded', '1.1.0')],
      1,
      'revision 1 of "foo" installed foo.v1.1.0, the bundle the deployed revision 2 runs',
    ],
    [
      [rev(2, 'deployed', '1.1.0'), rev(1, 'superseded', '1.0.0', { bundle: { package: 'foo', name: '', version: '1.0.0', image: '' } })],
      1,
      'revision 1 of "foo" recorded no bundle',
    ],
  ])('refuses %#: %s', (history, revision, message) => {
    const r = chooseRollbackTarget('foo', history, revision);
    expect(r.ok ? 'chosen' : r.error).toContain(message);
  });
});
