// `olmv1 upgrade plan` says what the maintenance window (decision 0122) does with the pick, as
// operator-controller's window step decides: from the annotation, or, for operator-controller's
// --maintenance-window, from the condition the step set.
import { describe, expect, it } from 'vitest';
import { APPROVED_BUNDLE_ANNOTATION } from '../../pkg/shared/api/index.ts';
import type { KubeObject } from '../../pkg/operator-controller/bundle/index.ts';
import { MAINTENANCE_WINDOW_ANNOTATION } from '../../pkg/operator-controller/maintenance/index.ts';
import { formatPlan } from './upgrade-format.ts';
import { planWindow } from '../../pkg/operator-controller/upgradeplan/index.ts';
import type { UpgradePlan } from '../../pkg/olmv1/upgrade/index.ts';

const NOW = Date.parse('2026-06-10T12:00:00Z');
const ce = (annotations?: Record<string, string>, conditions?: unknown[]): KubeObject => ({
  apiVersion: 'olm.operatorframework.io/v1',
  kind: 'ClusterExtension',
  metadata: { name: 'ext', ...(annotations === undefined ? {} : { annotations }) },
  ...(conditions === undefined ? {} : { status: { conditions } }),
});

describe('planWindow', () => {
  it.each([
    ['no annotation, no condition: nothing known', undefined, undefined],
    [
      'outside the annotated window',
      { [MAINTENANCE_WINDOW_ANNOTATION]: '0 2 * * SAT 4h Europe/Berlin' },
      {
        window: '0 2 * * SAT 4h Europe/Berlin',
        source: 'annotation',
        decision: 'hold',
        opensAt: '2026-06-13T00:00:00Z',
        reason: 'outside the window: it opens at 2026-06-13T00:00:00Z (2026-06-13 02:00 Europe/Berlin)',
      },
    ],
    ['inside it', { [MAINTENANCE_WINDOW_ANNOTATION]: '0 11 * * * 2h' }, { decision: 'install', reason: 'the window is open now', opensAt: null }],
    [
      'approved',
      { [MAINTENANCE_WINDOW_ANNOTATION]: '0 2 * * SAT 4h', [APPROVED_BUNDLE_ANNOTATION]: 'p.v1.1.0' },
      { decision: 'install', reason: 'approved: an approved upgrade goes whatever the maintenance window' },
    ],
    ['None', { [MAINTENANCE_WINDOW_ANNOTATION]: 'None' }, { decision: 'install' }],
    [
      'invalid',
      { [MAINTENANCE_WINDOW_ANNOTATION]: 'nightly' },
      { decision: 'hold', reason: expect.stringMatching(/^the annotation is not a maintenance window: /) },
    ],
  ])('%s', (_what, annotations, expected) => {
    const w = planWindow(ce(annotations), 'p.v1.1.0', NOW);
    if (expected === undefined) expect(w).toBeUndefined();
    else expect(w).toMatchObject(expected);
  });

  it("operator-controller's default is read from the condition that holds this bundle", () => {
    const message =
      'bundle "p.v1.1.0" version "1.1.0" is available (installed: bundle "p.v1.0.0" version "1.0.0") and waits for the maintenance window ' +
      `"0 3 * * * 1h" (operator-controller's --maintenance-window): it opens at 2026-06-11T03:00:00Z; or approve it`;
    const held = [{ type: 'UpgradeAvailable', status: 'True', reason: 'OutsideMaintenanceWindow', message }];
    expect(planWindow(ce(undefined, held), 'p.v1.1.0', NOW)).toEqual({
      window: '',
      source: 'operator-controller',
      decision: 'hold',
      opensAt: '2026-06-11T03:00:00Z',
      reason: message,
    });
    // A condition about another bundle says nothing of this one.
    expect(planWindow(ce(undefined, held), 'p.v1.2.0', NOW)).toBeUndefined();
  });

  it('the plan text has a line for it', () => {
    const plan = {
      extension: 'ext',
      package: 'p',
      installed: { bundle: 'p.v1.0.0', version: '1.0.0', revision: 1 },
      selection: { channels: [], versionRange: '', upgradeConstraintPolicy: 'CatalogProvided' },
      successors: [],
      pick: { bundle: 'p.v1.1.0', version: '1.1.0', image: 'img', catalog: 'c', reason: 'r' },
      upToDate: false,
      deprecations: [],
      window: planWindow(ce({ [MAINTENANCE_WINDOW_ANNOTATION]: '0 2 * * SAT 4h' }), 'p.v1.1.0', NOW),
    } satisfies UpgradePlan;
    expect(formatPlan(plan)).toContain('Maintenance window "0 2 * * SAT 4h": holds it: outside the window: it opens at 2026-06-13T02:00:00Z\n');
  });
});
