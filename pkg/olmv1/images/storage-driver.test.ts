import { describe, expect, it } from 'vitest';
import { driverFor, storageRoots } from './storage-driver.ts';

describe("the project buildah's storage driver", () => {
  it('is overlay when the probe mount showed its lower layer', () => {
    expect(driverFor({ mounted: true, lowerVisible: true })).toEqual({ driver: 'overlay' });
  });

  it('is vfs, with the reason, when the probe mount failed or showed nothing', () => {
    expect(driverFor({ mounted: false, error: 'mount: permission denied' })).toEqual({
      driver: 'vfs',
      reason: 'an overlay mount in the storage directory failed: mount: permission denied',
    });
    expect(driverFor({ mounted: true, lowerVisible: false })).toMatchObject({ driver: 'vfs' });
  });

  it("keeps each driver's storage apart, vfs under the names older commits use", () => {
    expect(storageRoots('/c', 'vfs')).toEqual({ root: '/c/storage', runRoot: '/c/run' });
    expect(storageRoots('/c', 'overlay')).toEqual({ root: '/c/storage-overlay', runRoot: '/c/run-overlay' });
  });
});
