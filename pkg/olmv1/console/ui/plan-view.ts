/**
 * The upgrade plan's changes as the page's tables show them (pure): one row per object added,
 * changed or removed (its kind, namespace and name, from the plan's `Kind ns/name` labels, and the
 * diff lines of a changed one), and one row per permission gained or lost.
 */

/** The part of a plan's JSON read here. */
export interface PlanChangesView {
  objects: { added: readonly string[]; removed: readonly string[]; changed: readonly { object: string; lines: readonly string[] }[] };
  permissions: {
    gained: readonly PlanPermission[];
    lost: readonly PlanPermission[];
  };
}

/** A rule a role of the bundle gains or loses. */
interface PlanPermission {
  scope: string;
  role: string;
  rule: string;
  escalates: boolean;
}

/** One row of the objects table. */
interface PlanObjectRow {
  kind: string;
  namespace: string;
  name: string;
  change: 'added' | 'changed' | 'removed';
  /** For a changed object: its field lines, as `kubectl diff` prints them. */
  lines: readonly string[];
}

/** One row of the permissions table. */
interface PlanPermissionRow extends PlanPermission {
  change: 'added' | 'removed';
}

/** `Kind ns/name` or `Kind name` as kind, namespace and name. */
function splitLabel(label: string): { kind: string; namespace: string; name: string } {
  const space = label.indexOf(' ');
  if (space < 0) return { kind: label, namespace: '', name: '' };
  const rest = label.slice(space + 1);
  const slash = rest.indexOf('/');
  return slash < 0
    ? { kind: label.slice(0, space), namespace: '', name: rest }
    : { kind: label.slice(0, space), namespace: rest.slice(0, slash), name: rest.slice(slash + 1) };
}

/** The objects table: added, then changed, then removed. */
export function planObjectRows(c: PlanChangesView): PlanObjectRow[] {
  return [
    ...c.objects.added.map((o) => ({ ...splitLabel(o), change: 'added' as const, lines: [] })),
    ...c.objects.changed.map((o) => ({ ...splitLabel(o.object), change: 'changed' as const, lines: o.lines })),
    ...c.objects.removed.map((o) => ({ ...splitLabel(o), change: 'removed' as const, lines: [] })),
  ];
}

/** The permissions table: gained (added), then lost (removed). */
export function planPermissionRows(c: PlanChangesView): PlanPermissionRow[] {
  return [
    ...c.permissions.gained.map((p) => ({ ...p, change: 'added' as const })),
    ...c.permissions.lost.map((p) => ({ ...p, change: 'removed' as const })),
  ];
}
