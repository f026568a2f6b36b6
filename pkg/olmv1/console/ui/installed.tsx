/** The Installed page: every ClusterExtension with its package, version, and Installed / Progressing / Healthy / UpgradeAvailable, refreshed every 5 s. */
import { useEffect, useState } from 'react';
import { Alert, Label, PageSection, Title } from '@patternfly/react-core';
import { extensionHref, getJson, type ExtensionRow } from './api.ts';

/** How often the Installed pages read the ClusterExtensions again. */
export const POLL_MS = 5_000;

/** A condition as a label: green when it is `good`, grey when absent or Unknown, else `bad` (red by default). */
export function Status({ c, good, bad = 'red' }: { c: ExtensionRow['installed']; good: string; bad?: 'red' | 'blue' }) {
  const color = c.status === good ? 'green' : c.status === '' || c.status === 'Unknown' ? 'grey' : bad;
  return (
    <Label color={color} isCompact title={c.message}>
      {c.status === '' ? '-' : `${c.status}${c.reason === '' ? '' : ` (${c.reason})`}`}
    </Label>
  );
}

/** The Installed page. */
export function InstalledPage() {
  const [rows, setRows] = useState<ExtensionRow[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    const ac = new AbortController();
    const load = (): void => {
      getJson<{ extensions: ExtensionRow[] }>('/api/extensions', ac.signal).then(
        (r) => {
          setRows(r.extensions);
          setError(undefined);
        },
        (e: unknown) => ac.signal.aborted || setError(String((e as Error).message)),
      );
    };
    load();
    const t = setInterval(load, POLL_MS);
    return () => {
      clearInterval(t);
      ac.abort();
    };
  }, []);
  return (
    <PageSection aria-label="Installed">
      <Title headingLevel="h1">Installed operators</Title>
      {error !== undefined && <Alert variant="danger" isInline title={error} />}
      {rows !== undefined && rows.length === 0 && <p>No ClusterExtension yet.</p>}
      {rows !== undefined && rows.length > 0 && (
        <table className="pf-v6-c-table pf-m-compact" aria-label="ClusterExtensions">
          <thead className="pf-v6-c-table__thead">
            <tr className="pf-v6-c-table__tr">
              {['Name', 'Package', 'Namespace', 'Version', 'Installed', 'Progressing', 'Healthy', 'Upgrade available'].map((h) => (
                <th key={h} className="pf-v6-c-table__th" scope="col">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="pf-v6-c-table__tbody">
            {rows.map((r) => (
              <tr key={r.name} className="pf-v6-c-table__tr" data-extension={r.name}>
                <td className="pf-v6-c-table__td">
                  <a href={extensionHref(r.name)}>{r.name}</a>
                </td>
                <td className="pf-v6-c-table__td">{r.package}</td>
                <td className="pf-v6-c-table__td">{r.namespace}</td>
                <td className="pf-v6-c-table__td">{r.version || '-'}</td>
                <td className="pf-v6-c-table__td">
                  <Status c={r.installed} good="True" />
                </td>
                <td className="pf-v6-c-table__td">
                  <Status c={r.progressing} good="True" />
                </td>
                <td className="pf-v6-c-table__td">
                  <Status c={r.healthy} good="True" />
                </td>
                <td className="pf-v6-c-table__td">
                  <Status c={r.upgradeAvailable} good="False" bad="blue" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </PageSection>
  );
}
