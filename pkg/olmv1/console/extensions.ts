/** The Installed page's rows (pure): each ClusterExtension with its package, version and conditions at a glance. */

/** One ClusterExtension as the Installed page shows it. */
export interface ExtensionRow {
  name: string;
  namespace: string;
  package: string;
  version: string;
  /** Condition statuses ("True", "False", "Unknown", or "" when absent) with their messages. */
  installed: ConditionView;
  progressing: ConditionView;
  healthy: ConditionView;
}

interface ConditionView {
  status: string;
  reason: string;
  message: string;
}

/** The row of one ClusterExtension object as the API server returned it. */
export function extensionRow(obj: unknown): ExtensionRow {
  const o = rec(obj);
  const spec = rec(o.spec);
  const status = rec(o.status);
  const conds = Array.isArray(status.conditions) ? status.conditions.map(rec) : [];
  const cond = (type: string): ConditionView => {
    const c = conds.find((x) => x.type === type);
    return { status: s(c?.status), reason: s(c?.reason), message: s(c?.message) };
  };
  return {
    name: s(rec(o.metadata).name),
    namespace: s(spec.namespace),
    package: s(rec(rec(spec.source).catalog).packageName),
    version: s(rec(rec(status.install).bundle).version),
    installed: cond('Installed'),
    progressing: cond('Progressing'),
    healthy: cond('Healthy'),
  };
}

function rec(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function s(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
