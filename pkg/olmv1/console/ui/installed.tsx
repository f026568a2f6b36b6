/**
 * The Installed page: every ClusterExtension with its package, version, and Installed / Progressing / Healthy / UpgradeAvailable, read again
 * on every change (use-live.tsx); when no Node is Ready (counted as the user) and one is not Healthy, it says why, as the extension page does.
 */
import { Alert, Label, PageSection, Title } from '@patternfly/react-core';
import { extensionHref, type ExtensionRow } from './api.ts';
import { useLive } from './use-live.tsx';

/**
 * A condition as a label: orange when its reason is Retrying (the last attempt failed, whatever
 * the status), else green when it is `good`, grey when absent or Unknown, else `bad` (red by default).
 */
export function Status({ c, good, bad = 'red' }: { c: ExtensionRow['installed']; good: string; bad?: 'red' | 'blue' }) {
  const color = c.reason === 'Retrying' ? 'orange' : c.status === good ? 'green' : c.status === '' || c.status === 'Unknown' ? 'grey' : bad;
  return (
    <Label color={color} isCompact title={c.message}>
      {c.status === '' ? '-' : `${c.status}${c.reason === '' ? '' : ` (${c.reason})`}`}
    </Label>
  );
}

/** The Installed page. */
export function InstalledPage() {
  const live = useLive<{ extensions: ExtensionRow[]; readyNodes?: number }>('/api/extensions', ['extensions']);
  const rows = live.data?.extensions;
  const unhealthy = rows?.some((r) => r.healthy.status !== 'True') === true;
  const error = live.error?.message;
  return (
    <PageSection aria-label="Installed">
      <Title headingLevel="h1">Installed operators</Title>
      {error !== undefined && <Alert component="p" variant="danger" isInline title={error} />}
      {rows !== undefined && rows.length === 0 && <p>No ClusterExtension yet.</p>}
      {live.data?.readyNodes === 0 && unhealthy && (
        <Alert component="p" variant="info" isInline title="No Node of the cluster is Ready" data-no-ready-node="">
          No Pod runs, so the operators&apos; Deployments cannot become available: Healthy stays False until a Node joins.
        </Alert>
      )}
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
