/**
 * The Cluster page (`#/cluster`): the cluster-upgrade gate as `olmv1 status` computes it (its JSON
 * report, run as the user): the verdict, and what blocks the next minor upgrade and why
 * (olm.maxOpenShiftVersion, API versions the next Kubernetes minor removes, Upgradeable=False).
 */
import { Alert, Label, PageSection, Title } from '@patternfly/react-core';
import { useLive } from './use-live.tsx';
import { Table } from './extension-page.tsx';

/** The part of `olmv1 status -o json` the page shows (docs/olmv1-status.md). */
interface Report {
  cluster: { currentVersion: string | null; nextVersion: string | null; versionError: string | null };
  kubernetes?: { targetVersion: string | null; error: string | null };
  extensions: { name: string; package: string; installedVersion: string | null; maxOpenShiftVersion: string | null }[];
  verdict: {
    upgradeable: boolean;
    blockers: { extension: string; bundle: string; maxOpenShiftVersion: string }[];
    metadataErrors: string[];
    removedApis?: {
      extension: string;
      kind: string;
      namespace: string | null;
      name: string;
      apiVersion: string;
      removedIn: string;
      replacement: string;
    }[];
    notUpgradeable?: { extension: string; message: string }[];
  };
}

/** `olmv1 status` exit codes: 0 allowed, 1 blocked, 3 undecidable. */
const VERDICT: Record<number, { text: string; color: 'green' | 'red' | 'orange' }> = {
  0: { text: 'Upgrade allowed', color: 'green' },
  1: { text: 'Upgrade blocked', color: 'red' },
  3: { text: 'Undecidable', color: 'orange' },
};

/** The Cluster page. */
export function ClusterPage() {
  // Read again when an extension or its revisions change: the gate is computed from them.
  const live = useLive<{ code: number; report: Report }>('/api/cluster', ['extensions']);
  const r = live.data;
  const error = live.error?.message;
  const v = r?.report.verdict;
  const verdict = r === undefined ? undefined : (VERDICT[r.code] ?? { text: `exit ${r.code}`, color: 'orange' as const });
  return (
    <PageSection aria-label="Cluster">
      <Title headingLevel="h1">Cluster upgrade</Title>
      {error !== undefined && <Alert component="p" variant="danger" isInline title={error} />}
      {r !== undefined && v !== undefined && verdict !== undefined && (
        <div data-cluster-verdict={r.code}>
          <p>
            <Label color={verdict.color}>{verdict.text}</Label> Cluster version {r.report.cluster.currentVersion ?? 'unknown'}
            {r.report.cluster.nextVersion === null ? '' : `, next minor ${r.report.cluster.nextVersion}`}
            {r.report.kubernetes?.targetVersion == null ? '' : `; Kubernetes APIs checked against ${r.report.kubernetes.targetVersion}`}
          </p>
          {r.report.cluster.versionError !== null && <Alert component="p" variant="info" isInline isPlain title={r.report.cluster.versionError} />}
          {r.report.kubernetes?.error != null && <Alert component="p" variant="info" isInline isPlain title={r.report.kubernetes.error} />}
          <Title headingLevel="h2">What blocks the next minor upgrade</Title>
          {v.blockers.length === 0 && (v.removedApis ?? []).length === 0 && (v.notUpgradeable ?? []).length === 0 && v.metadataErrors.length === 0 ? (
            <p>Nothing.</p>
          ) : (
            <Table
              label="Blockers"
              head={['Extension', 'Why', 'Detail']}
              rows={[
                ...v.blockers.map((b) => [b.extension, 'olm.maxOpenShiftVersion', `${b.bundle} allows OpenShift up to ${b.maxOpenShiftVersion}`]),
                ...(v.removedApis ?? []).map((a) => [
                  a.extension,
                  `API removed in ${a.removedIn}`,
                  `${a.kind} ${a.namespace === null ? '' : `${a.namespace}/`}${a.name} uses ${a.apiVersion}${a.replacement === '' ? '' : `; use ${a.replacement}`}`,
                ]),
                ...(v.notUpgradeable ?? []).map((h) => [h.extension, 'Upgradeable=False', h.message]),
                ...v.metadataErrors.map((m) => ['-', 'metadata error', m]),
              ]}
            />
          )}
          <Title headingLevel="h2">Installed extensions</Title>
          <Table
            label="Extensions"
            head={['Extension', 'Package', 'Version', 'Max OpenShift version']}
            rows={r.report.extensions.map((e) => [e.name, e.package, e.installedVersion ?? '-', e.maxOpenShiftVersion ?? '-'])}
          />
        </div>
      )}
    </PageSection>
  );
}
