/** The pages' compact table of text cells (PatternFly's table classes). */
import type { ReactNode } from 'react';

/** A compact PatternFly table of text cells. */
export function Table({ label, head, rows }: { label: string; head: string[]; rows: ReactNode[][] }) {
  return (
    <table className="pf-v6-c-table pf-m-compact" aria-label={label}>
      <thead className="pf-v6-c-table__thead">
        <tr className="pf-v6-c-table__tr">
          {head.map((h) => (
            <th key={h} className="pf-v6-c-table__th" scope="col">
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody className="pf-v6-c-table__tbody">
        {rows.map((r, i) => (
          <tr key={i} className="pf-v6-c-table__tr">
            {r.map((c, j) => (
              <td key={j} className="pf-v6-c-table__td">
                {c}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
