import { describe, expect, it } from 'vitest';
import { OwnWrites } from './own-writes.ts';

const copy = (name: string, uid: string, resourceVersion = '1') => ({ metadata: { name, uid, resourceVersion } });

describe('OwnWrites: when the informer copy shows what this process wrote (issue 74)', () => {
  it('a create is shown once the copy holds that uid, an update once it is past the resourceVersion it was made on', () => {
    const own = new OwnWrites();
    own.wrote('ext', [
      { name: 'ext-2', uid: 'u2' },
      { name: 'ext-1', uid: 'u1', on: '5' },
    ]);
    expect(own.current('ext', [copy('ext-1', 'u1', '5')])).toBe(false);
    expect(own.current('ext', [copy('ext-1', 'u1', '5'), copy('ext-2', 'other')])).toBe(false);
    // ext-2 shown: only the update is still waited for.
    expect(own.current('ext', [copy('ext-1', 'u1', '5'), copy('ext-2', 'u2')])).toBe(false);
    expect(own.current('ext', [copy('ext-1', 'u1', '6')])).toBe(true);
    expect(own.size).toBe(0);
    expect(own.current('other', [])).toBe(true);
  });

  it('a delete is shown once the copy no longer holds that uid; a revision still listed live (its finalizers) is no longer waited for', () => {
    const own = new OwnWrites();
    own.wrote('ext', [{ name: 'ext-1', uid: 'u1', gone: true }]);
    expect(own.current('ext', [copy('ext-1', 'u1')])).toBe(false);
    expect(own.current('ext', [copy('ext-1', 'u9')])).toBe(true);
    own.wrote('ext', [{ name: 'ext-1', uid: 'u1', gone: true }]);
    own.listed('ext', [copy('ext-1', 'u1')]);
    expect(own.current('ext', [copy('ext-1', 'u1')])).toBe(true);
    // Read at resourceVersion 3: a copy still at 3 is behind the delete, one past it shows it being deleted.
    own.wrote('ext', [{ name: 'ext-1', uid: 'u1', on: '3', gone: true }]);
    own.listed('ext', [copy('ext-1', 'u1', '4')]);
    expect(own.current('ext', [copy('ext-1', 'u1', '3')])).toBe(false);
    expect(own.current('ext', [copy('ext-1', 'u1', '4')])).toBe(true);
  });

  it('a create whose outcome is unknown takes the uid a live list shows, and is dropped when the list shows none', () => {
    const own = new OwnWrites();
    own.wrote('ext', [{ name: 'ext-2' }]);
    expect(own.current('ext', [])).toBe(false);
    own.listed('ext', [copy('ext-2', 'u2')]);
    // An older object of that name in the copy is not it.
    expect(own.current('ext', [copy('ext-2', 'old')])).toBe(false);
    expect(own.current('ext', [copy('ext-2', 'u2')])).toBe(true);
    own.wrote('ext', [{ name: 'ext-3' }]);
    own.listed('ext', []);
    expect(own.current('ext', [])).toBe(true);
    expect(own.size).toBe(0);
  });
});
