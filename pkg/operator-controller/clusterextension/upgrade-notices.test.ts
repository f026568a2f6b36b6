import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createUpgradeNotices } from './upgrade-notices.ts';

async function series(registry: Registry): Promise<unknown[]> {
  const metric = registry.getSingleMetric('olmv1_extension_upgrade_available');
  return ((await metric?.get())?.values ?? []).map((v) => ({ ...v.labels, value: v.value }));
}

describe('upgrade notices', () => {
  it('keeps one series per extension with a held upgrade, announcing each new one once', async () => {
    const registry = new Registry();
    const notices = createUpgradeNotices(registry);
    expect(notices.set('a', { from: '1.0.0', to: '1.1.0' })).toBe(true);
    expect(notices.set('a', { from: '1.0.0', to: '1.1.0' })).toBe(false);
    expect(notices.set('b', { from: '2.0.0', to: '3.0.0' })).toBe(true);
    expect(await series(registry)).toEqual([
      { name: 'a', from: '1.0.0', to: '1.1.0', value: 1 },
      { name: 'b', from: '2.0.0', to: '3.0.0', value: 1 },
    ]);
    // The catalog now offers 1.2.0: the old series goes, the new one is announced.
    expect(notices.set('a', { from: '1.0.0', to: '1.2.0' })).toBe(true);
    expect(await series(registry)).toEqual([
      { name: 'b', from: '2.0.0', to: '3.0.0', value: 1 },
      { name: 'a', from: '1.0.0', to: '1.2.0', value: 1 },
    ]);
  });

  it('drops the series when nothing is held any more (installed, withdrawn, extension deleted)', async () => {
    const registry = new Registry();
    const notices = createUpgradeNotices(registry);
    notices.set('a', { from: '1.0.0', to: '1.1.0' });
    expect(notices.set('a', undefined)).toBe(false);
    expect(notices.set('unknown', undefined)).toBe(false);
    expect(await series(registry)).toEqual([]);
    // Held again after it went: announced again.
    expect(notices.set('a', { from: '1.0.0', to: '1.1.0' })).toBe(true);
  });
});
