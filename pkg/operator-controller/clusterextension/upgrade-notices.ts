/**
 * The metric of upgrades the update policy holds (decision 0096):
 * `olmv1_extension_upgrade_available{name,from,to}` is 1 for each extension with a held
 * upgrade, labelled with the installed and the offered version; the series goes away when the
 * upgrade is installed, no longer offered, or the extension is deleted. Which upgrade each
 * extension holds is kept here too, so that the step records an Event once per held bundle.
 */
import type { Registry } from 'prom-client';
import { gaugeOn } from '../../shared/kube/index.ts';

/** An upgrade held back: the installed and the offered version. */
interface HeldUpgrade {
  from: string;
  to: string;
}

/** What the policy and finalizers steps use. */
export interface UpgradeNotices {
  /**
   * Records that `extension` now holds `held` (undefined: nothing). True when this differs
   * from what was recorded before (in this process): a new notice to announce.
   */
  set(extension: string, held: HeldUpgrade | undefined): boolean;
}

/** UpgradeNotices on `registry`. */
export function createUpgradeNotices(registry: Registry): UpgradeNotices {
  const gauge = gaugeOn(
    registry,
    'olmv1_extension_upgrade_available',
    'Upgrades the catalogs offer that the update policy holds until approved (1 per extension), by installed and offered version.',
    ['name', 'from', 'to'],
  );
  const current = new Map<string, HeldUpgrade>();
  return {
    set(extension, held) {
      const before = current.get(extension);
      if (before?.from === held?.from && before?.to === held?.to) return false;
      if (before !== undefined) gauge.remove({ name: extension, from: before.from, to: before.to });
      if (held === undefined) {
        current.delete(extension);
        return false;
      }
      current.set(extension, held);
      gauge.set({ name: extension, from: held.from, to: held.to }, 1);
      return true;
    },
  };
}
