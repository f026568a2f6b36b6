/**
 * The human text of `olmv1 upgrade plan` (pure): sections in the order an administrator reads
 * them, object changes as `kubectl diff` field lines.
 */
import type { PermissionChange, PlanChanges } from '../../pkg/operator-controller/upgradeplan/index.ts';
import { formatGates, type UpgradePlan } from '../../pkg/olmv1/upgrade/index.ts';

/** The plan as text, ending with a newline. */
export function formatPlan(plan: UpgradePlan): string {
  const out: string[] = [];
  const sel = plan.selection;
  out.push(`Upgrade plan for ClusterExtension ${plan.extension} (package ${plan.package})`);
  out.push(`Installed: ${plan.installed.bundle} (${plan.installed.version}), release revision ${plan.installed.revision}`);
  out.push(
    `Selection: channels ${sel.channels.length === 0 ? '(all)' : sel.channels.join(', ')}; version range ${sel.versionRange === '' ? '(any)' : sel.versionRange}; upgradeConstraintPolicy ${sel.upgradeConstraintPolicy}`,
  );
  out.push('', 'Successors offered:');
  if (plan.successors.length === 0) out.push('  (none)');
  for (const s of plan.successors) {
    const edge = s.edge === 'skipRange' ? `skipRange ${JSON.stringify(s.skipRange ?? '')}` : s.edge;
    const notes = [s.inRange ? '' : 'outside the version range', s.deprecated ? 'deprecated' : ''].filter((n) => n !== '');
    out.push(
      `  ${(s.version || '?').padEnd(10)} ${s.bundle}  catalog ${s.catalog}${s.channel === null ? '' : `, channel ${s.channel}`}, ${edge}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`,
    );
  }
  out.push('');
  if (plan.error !== undefined) {
    out.push(`Cannot plan: the resolution fails:`, ...indent(plan.error.split('\n'), '  '));
    if (plan.hints !== undefined && plan.hints.length > 0) out.push('What the catalogs offer instead:', ...indent(plan.hints, '  '));
    return text(out);
  }
  const pick = plan.pick;
  if (pick !== null && plan.upToDate) out.push(`Up to date: ${pick.reason}`);
  else if (pick !== null) out.push(`Next: ${pick.bundle} (${pick.version}) from catalog ${pick.catalog}: ${pick.reason}`);
  if (plan.dependencyHold !== undefined) out.push(`Held for a dependent: ${plan.dependencyHold}`);
  if (plan.dependencyNote !== undefined) out.push(`Note: ${plan.dependencyNote}`);
  if (plan.deprecations.length > 0) out.push('', 'Deprecations:', ...indent(plan.deprecations, '  '));
  if (plan.changes !== undefined) {
    // The gates the pick was rendered with, then what it changes.
    out.push('', ...(plan.gates === undefined ? [] : [formatGates(plan.gates)]), ...formatChanges(plan.changes));
  }
  if (plan.policy !== undefined) {
    const p = plan.policy;
    out.push('', `Update policy: ${p.policy}: ${p.decision === 'install' ? 'installs it' : 'holds it'}: ${p.reason}`);
    if (p.decision === 'hold') out.push(`  approve it with: ${p.approveCommand}`);
  }
  if (plan.window !== undefined) {
    const w = plan.window;
    const name = w.source === 'annotation' ? JSON.stringify(w.window) : "operator-controller's --maintenance-window";
    out.push(`Maintenance window ${name}: ${w.decision === 'install' ? 'lets it go' : 'holds it'}: ${w.reason}`);
  }
  return text(out);
}

/** The lines joined, control characters escaped: catalog and bundle text must not drive the terminal. */
function text(lines: readonly string[]): string {
  const escaped = lines.map((l) => l.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
  return `${escaped.join('\n')}\n`;
}

function formatChanges(c: PlanChanges): string[] {
  const o = c.objects;
  const out = [`Objects: ${o.added.length} added, ${o.removed.length} removed, ${o.changed.length} changed`];
  for (const a of o.added) out.push(`  + ${a}`);
  for (const r of o.removed) out.push(`  - ${r}`);
  for (const ch of o.changed) out.push(`  ~ ${ch.object}`, ...indent(ch.lines, '      '));
  for (const d of c.droppedFields) out.push(`  note: ${d.object}: fields the API server does not know are dropped: ${d.paths.join(', ')}`);
  const p = c.permissions;
  out.push('', `Permissions: ${p.summary === '' ? 'no change' : `${p.gained.length} gained, ${p.lost.length} lost`}`);
  for (const [sign, list] of [
    ['+', p.gained],
    ['-', p.lost],
  ] as const) {
    for (const ch of list) out.push(permissionLine(sign, ch));
  }
  if (p.incomplete === true) out.push('  note: not every rule could be compared (too many); the lists may over-report');
  const s = c.crdUpgradeSafety;
  out.push('', `CRD upgrade safety (enforcement ${s.enforcement}):`);
  if (s.crds.length === 0) out.push('  (no CRDs)');
  for (const crd of s.crds) {
    const blocked = crd.verdict === 'unsafe' && s.enforcement !== 'None' ? ' (the upgrade will be blocked)' : '';
    out.push(
      `  ${crd.name}: ${crd.verdict === 'new' ? 'new, nothing to compare' : crd.verdict}${blocked}`,
      ...indent(crd.violations, '    '),
      ...indent(crd.storedObjects ?? [], '    '),
    );
  }
  out.push('', `olm.maxOpenShiftVersion: ${c.maxOpenShiftVersion.verdict}`);
  return out;
}

/** `  + <scope>: <role>: <rule>`, flagged when the grant escalates. */
function permissionLine(sign: '+' | '-', ch: PermissionChange): string {
  return `  ${sign} ${ch.scope}: ${ch.role}: ${ch.rule}${ch.escalates ? '  [escalates]' : ''}`;
}

function indent(lines: readonly string[], prefix: string): string[] {
  return lines.map((l) => `${prefix}${l}`);
}
