/**
 * A channel's upgrade graph as SVG: one node per entry in version order, arcs from each bundle to
 * the one that upgrades from it (replaces above, skips below dashed, skipRange below dotted); the
 * channel head has a heavy outline, deprecated entries a warm fill and a note.
 */
import type { ChannelView } from '../hub-index.ts';

const STEP = 150;
const Y = 110;
const R = 14;

/** The upgrade graph of one channel. */
export function ChannelGraph({ channel, index }: { channel: ChannelView; index: number }) {
  const x = new Map(channel.entries.map((e, i) => [e.name, 60 + i * STEP]));
  const arrow = `olmv1-arrow-${index}`;
  const arc = (from: string, to: string, kind: 'replaces' | 'skip' | 'range', key: string) => {
    const x1 = x.get(from);
    const x2 = x.get(to);
    if (x1 === undefined || x2 === undefined) return null;
    const up = kind === 'replaces';
    const bend = Math.min(90, 24 + Math.abs(x2 - x1) / 5) * (up ? -1 : 1) * (kind === 'range' ? 1.4 : 1);
    const y = up ? Y - R : Y + R;
    return (
      <path
        key={key}
        className={`edge ${kind === 'replaces' ? '' : kind}`}
        d={`M ${x1} ${y} Q ${(x1 + x2) / 2} ${y + bend} ${x2 > x1 ? x2 - 4 : x2 + 4} ${y}`}
        markerEnd={`url(#${arrow})`}
      >
        <title>{`${to} ${kind === 'replaces' ? 'replaces' : kind === 'skip' ? 'skips' : 'skipRange covers'} ${from}`}</title>
      </path>
    );
  };
  const width = 120 + Math.max(0, channel.entries.length - 1) * STEP;
  const label = `Upgrade graph of channel ${channel.name}: ${channel.entries.map((e) => e.version || e.name).join(', ')}; head ${channel.head}`;
  return (
    <svg className="olmv1-graph" role="img" aria-label={label} viewBox={`0 0 ${width} 240`} width={width} height={240} data-channel={channel.name}>
      <defs>
        <marker id={arrow} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
          <path d="M 0 0 L 10 5 L 0 10 z" fill="#4d5258" />
        </marker>
      </defs>
      {channel.entries.flatMap((e) => [
        ...(e.replaces === undefined ? [] : [arc(e.replaces, e.name, 'replaces', `r-${e.name}`)]),
        ...e.skips.map((s) => arc(s, e.name, 'skip', `s-${e.name}-${s}`)),
        ...e.skipRangeCovers.map((s) => arc(s, e.name, 'range', `g-${e.name}-${s}`)),
      ])}
      {channel.entries.map((e) => {
        const cx = x.get(e.name) ?? 0;
        const head = e.name === channel.head;
        return (
          <g key={e.name} data-entry={e.name} data-head={head ? 'true' : undefined} data-deprecated={e.deprecated === undefined ? undefined : 'true'}>
            <circle className={`node${head ? ' head' : ''}${e.deprecated === undefined ? '' : ' deprecated'}`} cx={cx} cy={Y} r={R}>
              <title>{`${e.name}${head ? ' (channel head)' : ''}${e.deprecated === undefined ? '' : ` (deprecated: ${e.deprecated})`}`}</title>
            </circle>
            <text x={cx} y={Y + R + 40} textAnchor="middle">
              {e.version || e.name}
            </text>
            {head && (
              <text x={cx} y={Y + R + 56} textAnchor="middle" fontWeight="bold">
                head
              </text>
            )}
            {e.deprecated !== undefined && (
              <text x={cx} y={Y + R + (head ? 72 : 56)} textAnchor="middle">
                deprecated
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}
