/**
 * The table form of `olmv1 status`: catalogs, extensions with what fixes each one that waits or
 * fails, the verdict line and metadata errors. Colour only on a terminal without NO_COLOR; lines
 * are cut to the terminal's width when one is given.
 */
import type { StatusReport } from '../../pkg/olmv1/status/index.ts';

/** Rendering options. */
interface TableOptions {
  color: boolean;
  /** Cut every line to this many characters (a terminal's width). */
  columns?: number;
}

const RED = '\x1b[31m';
const GREEN = '\x1b[32m';
const YELLOW = '\x1b[33m';
const BOLD = '\x1b[1m';
const RESET = '\x1b[0m';

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

/** `sha256:0123456789ab` of a digest reference, or '-'. */
function shortDigest(ref: string | null): string {
  const m = ref === null ? null : /@(sha256:[0-9a-f]{12})/.exec(ref);
  return m?.[1] ?? (ref === null ? '-' : ref);
}

function condText(c: { status: string; reason: string } | null): string {
  if (c === null) return '-';
  return c.reason === '' ? c.status : `${c.status} (${c.reason})`;
}

/** Renders the report as text ending in a newline. */
export function renderStatusTable(r: StatusReport, o: TableOptions): string {
  const paint = (code: string, s: string): string => (o.color ? `${code}${s}${RESET}` : s);
  const out: string[] = [];
  out.push(paint(BOLD, 'CATALOGS'));
  if (r.catalogs.length === 0) out.push('(none)');
  else
    out.push(
      ...table(
        ['NAME', 'SERVING', 'PRIORITY', 'DIGEST', 'LAST UNPACKED', 'URL'],
        r.catalogs.map((c) => [
          c.name,
          c.serving ? 'True' : 'False',
          String(c.priority),
          shortDigest(c.resolvedRef),
          c.lastUnpacked ?? '-',
          c.contentURL ?? '-',
        ]),
      ),
    );
  out.push('', paint(BOLD, 'EXTENSIONS'));
  if (r.extensions.length === 0) out.push('(none)');
  else {
    // The OBJECT SET column only when some extension's revisions are ClusterObjectSets (BoxcutterRuntime).
    const sets = r.extensions.some((e) => e.objectSet !== undefined);
    out.push(
      ...table(
        [
          'NAME',
          'PACKAGE',
          'INSTALLED',
          ...(sets ? ['OBJECT SET'] : []),
          'CHANNELS/VERSION',
          'INSTALLED?',
          'PROGRESSING',
          'HEALTH',
          'DEPRECATED',
          'MAX OCP',
        ],
        r.extensions.map((e) => [
          e.name,
          e.package,
          e.installedVersion ?? '-',
          ...(sets ? [e.objectSet === undefined ? '-' : `${e.objectSet.name} (${e.objectSet.lifecycleState})`] : []),
          [e.channels.join(','), e.versionRange ?? ''].filter((s) => s !== '').join(' ') || '-',
          condText(e.installed),
          condText(e.progressing),
          condText(e.healthy ?? null),
          e.deprecations.length === 0 ? '-' : e.deprecations.join(','),
          e.maxOpenShiftVersion ?? '-',
        ]),
      ),
    );
  }
  // Each failing or waiting extension's advice.
  for (const e of r.extensions) {
    const shown = e.resolution ?? e.advice;
    if (shown === undefined) continue;
    out.push('', `${e.name}: ${shown.message}`, ...shown.hints.map((h) => `  ${h}`));
  }
  out.push('');
  const { verdict, cluster } = r;
  const head = `cluster upgrade to ${cluster.nextVersion}`;
  const from = `(current ${cluster.currentVersion}, from ${cluster.versionSource === 'flag' ? '--cluster-version' : 'ClusterVersion'})`;
  // The olm.maxOpenShiftVersion part of the verdict alone (removed APIs and Upgradeable=False follow it).
  const maxAllows =
    verdict.blockers.length === 0 &&
    verdict.metadataErrors.length === 0 &&
    (cluster.currentVersion !== null || r.extensions.every((e) => e.maxOpenShiftVersion === null));
  if (cluster.currentVersion === null && maxAllows) {
    out.push(
      verdict.upgradeable
        ? paint(GREEN, 'cluster upgrade: allowed, whatever the cluster version')
        : paint(GREEN, 'cluster upgrade: olm.maxOpenShiftVersion allows it, whatever the cluster version'),
    );
    out.push('  no installed extension declares olm.maxOpenShiftVersion');
    out.push(`  (${cluster.versionError ?? 'the current cluster version is not known'})`);
  } else if (cluster.currentVersion === null) {
    out.push(paint(YELLOW, 'cluster upgrade: cannot judge, no cluster version'));
    out.push(`  ${cluster.versionError ?? 'the current cluster version is not known'}`);
    out.push("  pass --cluster-version X.Y (the cluster's current version) to judge the next minor upgrade");
  } else if (verdict.blockers.length > 0) {
    out.push(`${paint(RED, `${head}: blocked by`)} ${from}`);
    for (const b of verdict.blockers) out.push(`  ${b.extension}: bundle ${b.bundle} declares olm.maxOpenShiftVersion ${b.maxOpenShiftVersion}`);
  } else if (verdict.metadataErrors.length > 0) {
    out.push(`${paint(YELLOW, `${head}: undecided`)} ${from}`);
  } else if (verdict.upgradeable) {
    out.push(`${paint(GREEN, `${head}: allowed`)} ${from}`);
  } else {
    out.push(`${paint(GREEN, `${head}: olm.maxOpenShiftVersion allows it`)} ${from}`);
  }
  const removed = verdict.removedApis ?? [];
  if (removed.length > 0) {
    out.push(`${paint(RED, `Kubernetes upgrade to ${r.kubernetes?.targetVersion ?? '?'}: blocked by removed APIs`)}`);
    for (const u of removed) {
      const where = u.namespace === null ? u.name : `${u.namespace}/${u.name}`;
      out.push(`  ${u.extension}: ${u.kind} ${where} uses ${u.apiVersion}, removed in ${u.removedIn}; use ${u.replacement}`);
    }
  } else if (r.kubernetes?.targetVersion != null) {
    out.push(`${paint(GREEN, `Kubernetes upgrade to ${r.kubernetes.targetVersion}: no installed object uses a removed API`)}`);
  } else if (r.kubernetes?.error != null) {
    out.push(paint(YELLOW, `removed APIs: not checked (${r.kubernetes.error}); pass --kubernetes-version X.Y`));
  }
  const held = verdict.notUpgradeable ?? [];
  if (held.length > 0) {
    out.push(paint(RED, 'cluster upgrade: blocked by operators that report Upgradeable=False'));
    for (const h of held) out.push(`  ${h.extension}: Upgradeable=False: ${h.message}`);
  }
  if (verdict.metadataErrors.length > 0) {
    out.push(paint(YELLOW, 'metadata errors:'));
    for (const e of verdict.metadataErrors) for (const line of e.split('\n')) out.push(`  ${line}`);
  }
  const cut = o.columns;
  // Cut by visible length: escape codes only wrap whole lines here, so cut uncoloured lines only.
  const lines = cut === undefined ? out : out.map((l) => (l.includes('\x1b[') || l.length <= cut ? l : `${l.slice(0, Math.max(cut - 1, 0))}…`));
  return `${lines.join('\n')}\n`;
}
