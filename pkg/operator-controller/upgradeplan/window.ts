/**
 * What the maintenance-window step would do with the plan's pick (pkg/operator-controller/maintenance
 * decides, as the window step does), for `olmv1 upgrade plan` (decision 0122).
 */
import type { KubeObject } from '../bundle/index.ts';
import { formatOpening, MAINTENANCE_WINDOW_ANNOTATION, windowAt, windowSetting } from '../maintenance/index.ts';
import { APPROVED_BUNDLE_ANNOTATION } from '../../shared/api/index.ts';

/** What the maintenance window does with the picked bundle. */
export interface PlanWindow {
  /** The window as written in the annotation; '' when it is operator-controller's --maintenance-window (read from the condition). */
  window: string;
  source: 'annotation' | 'operator-controller';
  /** `install`: the window does not stop it (open, or the upgrade is approved); `hold`: it waits. */
  decision: 'install' | 'hold';
  /** The next opening (RFC 3339, UTC) when the window holds it, else null. */
  opensAt: string | null;
  reason: string;
}

/** The UpgradeAvailable reason operator-controller's window step sets (steps-window.ts). */
const OUTSIDE_WINDOW_REASON = 'OutsideMaintenanceWindow';

/**
 * What the maintenance-window step would do with a move to `bundle` at `now`: the extension's
 * annotation decides here as there; without one, operator-controller's --maintenance-window
 * (which the CLI cannot read) is known from the condition the step set, when it holds this bundle.
 */
export function planWindow(ce: KubeObject, bundle: string, now: number): PlanWindow | undefined {
  const annotations = ce.metadata.annotations;
  const approved = (annotations?.[APPROVED_BUNDLE_ANNOTATION] ?? '').trim() === bundle;
  const approvedReason = 'approved: an approved upgrade goes whatever the maintenance window';
  if ((annotations?.[MAINTENANCE_WINDOW_ANNOTATION]?.trim() ?? '') === '') {
    const conditions = (ce as { status?: { conditions?: { type?: string; reason?: string; message?: string }[] } }).status?.conditions ?? [];
    const held = conditions.find((c) => c.type === 'UpgradeAvailable' && c.reason === OUTSIDE_WINDOW_REASON);
    if (held === undefined || !(held.message ?? '').includes(`bundle ${JSON.stringify(bundle)}`)) return undefined;
    const base = { window: '', source: 'operator-controller' as const };
    if (approved) return { ...base, decision: 'install', opensAt: null, reason: approvedReason };
    const opensAt = /it opens at (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)/.exec(held.message ?? '')?.[1] ?? null;
    return { ...base, decision: 'hold', opensAt, reason: held.message ?? '' };
  }
  const setting = windowSetting(annotations);
  const text = annotations?.[MAINTENANCE_WINDOW_ANNOTATION]?.trim() ?? '';
  const base = { window: text, source: 'annotation' as const, opensAt: null };
  if (setting.kind === 'none')
    return { ...base, decision: 'install', reason: "no maintenance window (None: whatever operator-controller's default)" };
  if (approved) return { ...base, decision: 'install', reason: approvedReason };
  if (setting.kind === 'invalid') return { ...base, decision: 'hold', reason: `the annotation is not a maintenance window: ${setting.error}` };
  const verdict = windowAt(setting.window, now);
  if (verdict.open) return { ...base, decision: 'install', reason: 'the window is open now' };
  if (verdict.opensAt === undefined) return { ...base, decision: 'hold', reason: 'the window does not open within 28 years' };
  return {
    ...base,
    decision: 'hold',
    opensAt: new Date(verdict.opensAt).toISOString().replace(/\.000Z$/, 'Z'),
    reason: `outside the window: it opens at ${formatOpening(setting.window, verdict.opensAt)}`,
  };
}
