/**
 * Which maintenance window applies to an extension (decision 0122): its annotation, else the
 * cluster-wide default (operator-controller's `--maintenance-window`), else none. Pure.
 */
import { parseMaintenanceWindow, type MaintenanceWindow } from './window.ts';

/** The extension's window (`<schedule> <duration> [<zone>]`), or `None` for no window whatever the cluster default. */
export const MAINTENANCE_WINDOW_ANNOTATION = 'olm.operatorframework.io/maintenance-window';

/** The value of the annotation that opts an extension out of the cluster-wide default. */
const NO_WINDOW = 'none';

/** The window an extension's upgrades wait for. */
type WindowSetting =
  /** Upgrades go whenever they come. `optedOut`: the annotation said None while a default exists. */
  | { kind: 'none'; optedOut: boolean }
  | { kind: 'window'; window: MaintenanceWindow; from: 'annotation' | 'default' }
  /** The annotation holds `text`, which is not a window (`error` says why). */
  | { kind: 'invalid'; text: string; error: string };

/** The window for an extension with `annotations`, given the cluster-wide `clusterDefault`. */
export function windowSetting(annotations: Readonly<Record<string, string>> | undefined, clusterDefault?: MaintenanceWindow): WindowSetting {
  const raw = annotations?.[MAINTENANCE_WINDOW_ANNOTATION]?.trim() ?? '';
  if (raw === '')
    return clusterDefault === undefined ? { kind: 'none', optedOut: false } : { kind: 'window', window: clusterDefault, from: 'default' };
  if (raw.toLowerCase() === NO_WINDOW) return { kind: 'none', optedOut: clusterDefault !== undefined };
  const parsed = parseMaintenanceWindow(raw);
  if (!parsed.ok) return { kind: 'invalid', text: raw.length > 80 ? `${raw.slice(0, 80)}...` : raw, error: parsed.error };
  return { kind: 'window', window: parsed.value, from: 'annotation' };
}
