/**
 * The upgrade plan of a ClusterExtension, from the plan `olmv1 upgrade plan NAME -o json` gives:
 * its summary, the objects and permissions it changes as tables (with the field diff of each
 * changed object), the gates it was rendered with and the update policy's decision; and Approve,
 * which runs `olmv1 upgrade approve NAME VERSION` as the user (the version the plan shows, so only
 * what was shown is approved; the command itself behind the Equivalent command disclosure). A plan shown is read again when the installed revision changes
 * (an approved upgrade, a rollback), so it never describes a release no longer installed.
 */
import { useEffect, useRef, useState } from 'react';
import { ActionGroup, Alert, Button, Spinner, Title } from '@patternfly/react-core';
import { getJson, postJson } from './api.ts';
import { EquivalentCommand } from './equivalent-command.tsx';
import { planObjectRows, planPermissionRows, type PlanChangesView } from './plan-view.ts';
import { storedObjectLines, type PlanCrds } from './stored-objects.ts';
import { Table } from './table.tsx';

interface Plan extends PlanCrds {
  installed: { bundle: string; version: string };
  pick: { bundle: string; version: string; catalog: string; reason: string } | null;
  upToDate: boolean;
  error?: string;
  hints?: string[];
  dependencyHold?: string;
  changes?: PlanCrds['changes'] & PlanChangesView;
  policy?: { policy: string; decision: 'install' | 'hold'; reason: string; approvedBundle: string; approveCommand?: string };
  gates?: { values: Record<string, boolean>; from: string };
}

/** The plan section of an extension's page; `installed` names the installed revision (the plan is read again when it changes). */
export function UpgradePlan({ name, installed }: { name: string; installed: string }) {
  const [plan, setPlan] = useState<Plan | undefined>();
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [approved, setApproved] = useState<string | undefined>();
  const [approveError, setApproveError] = useState<string | undefined>();
  const load = (): void => {
    setLoading(true);
    setError(undefined);
    getJson<{ plan: Plan }>(`/api/extensions/${encodeURIComponent(name)}/plan`).then(
      (p) => {
        setPlan(p.plan);
        setLoading(false);
      },
      (e: unknown) => {
        setError(String((e as Error).message));
        setLoading(false);
      },
    );
  };
  // Another revision installed (the approved upgrade, a rollback): the plan shown is read again.
  const shownFor = useRef(installed);
  const shown = plan !== undefined;
  useEffect(() => {
    if (shownFor.current === installed) return;
    shownFor.current = installed;
    if (!shown) return;
    setApproved(undefined);
    load();
  }, [installed]); // only a change of the installed revision reads again
  const approve = (version: string): void => {
    setApproveError(undefined);
    postJson<{ approved: string }>(`/api/extensions/${encodeURIComponent(name)}/approve`, { version }).then(
      (r) => setApproved(r.approved),
      (e: unknown) => setApproveError(String((e as Error).message)),
    );
  };
  const p = plan;
  const canApprove = p !== undefined && p.pick !== null && !p.upToDate && approved === undefined;
  const stored = p === undefined ? [] : storedObjectLines(p);
  return (
    <section aria-labelledby="upgrade-plan-heading" data-upgrade-plan={p === undefined ? 'none' : 'ready'}>
      <Title headingLevel="h2" id="upgrade-plan-heading">
        Upgrade plan
      </Title>
      <ActionGroup>
        <Button variant="secondary" onClick={load} isDisabled={loading}>
          {p === undefined ? 'Show upgrade plan' : 'Plan again'}
        </Button>
        {canApprove && p.pick !== null && (
          <Button variant="primary" onClick={() => approve(p.pick?.version ?? '')}>
            Approve {p.pick.bundle}
          </Button>
        )}
      </ActionGroup>
      {loading && <Spinner size="md" aria-label="Planning" />}
      {error !== undefined && <Alert component="p" variant="danger" isInline title={error} data-plan-error="" />}
      {approveError !== undefined && <Alert component="p" variant="danger" isInline title={approveError} data-approve-error="" />}
      {approved !== undefined && (
        <Alert component="p" variant="success" isInline title="Approved" data-approved="">
          <pre>{approved}</pre>
        </Alert>
      )}
      {p !== undefined && (
        <>
          <p data-plan-summary="">
            {p.upToDate
              ? `Up to date at ${p.installed.bundle} (${p.installed.version}).`
              : p.pick === null
                ? `No upgrade resolves: ${p.error ?? ''}`
                : `Next: ${p.pick.bundle} (${p.pick.version}) from catalog ${p.pick.catalog}, installed ${p.installed.bundle} (${p.installed.version}).`}
            {p.policy === undefined
              ? ''
              : ` Update policy ${p.policy.policy}: ${p.policy.decision === 'hold' ? 'held for approval' : 'installs it'}.`}
          </p>
          {stored.length > 0 && (
            <Alert component="p" variant="warning" isInline title="Stored objects that fail the new CRD schema" data-plan-stored-objects="">
              <pre>{stored.join('\n')}</pre>
            </Alert>
          )}
          <PlanDetails plan={p} />
        </>
      )}
    </section>
  );
}

/** The plan's data: why, what changes (tables), with which gates, and what the update policy does. */
function PlanDetails({ plan: p }: { plan: Plan }) {
  const objects = p.changes === undefined ? [] : planObjectRows(p.changes);
  const permissions = p.changes === undefined ? [] : planPermissionRows(p.changes);
  const changed = objects.filter((o) => o.change === 'changed' && o.lines.length > 0);
  const gates = p.gates === undefined ? [] : Object.entries(p.gates.values).sort(([a], [b]) => (a < b ? -1 : 1));
  return (
    <div data-plan-details="">
      {p.pick !== null && (
        <p>
          Why {p.pick.bundle}: {p.pick.reason}.
        </p>
      )}
      {p.hints !== undefined && p.hints.length > 0 && <pre>{p.hints.join('\n')}</pre>}
      {p.dependencyHold !== undefined && <p>Held for a dependent: {p.dependencyHold}</p>}
      {p.changes !== undefined && (
        <>
          <Title headingLevel="h3">Objects</Title>
          <div data-plan-objects="">
            <Table
              label="Objects the upgrade changes"
              head={['Kind', 'Name', 'Namespace', 'Change']}
              rows={objects.map((o) => [o.kind, o.name, o.namespace === '' ? '(cluster)' : o.namespace, o.change])}
            />
          </div>
          {changed.map((o) => (
            <details key={`${o.kind}/${o.namespace}/${o.name}`} data-plan-diff={`${o.kind} ${o.name}`}>
              <summary>
                Diff of {o.kind} {o.namespace === '' ? '' : `${o.namespace}/`}
                {o.name}
              </summary>
              <pre>{o.lines.join('\n')}</pre>
            </details>
          ))}
          <Title headingLevel="h3">Permissions</Title>
          {permissions.length === 0 ? (
            <p>No change to the permissions.</p>
          ) : (
            <Table
              label="Permissions the upgrade changes"
              head={['Change', 'Scope', 'Role', 'Rule', 'Escalates']}
              rows={permissions.map((r) => [r.change, r.scope, r.role, r.rule, r.escalates ? 'yes' : 'no'])}
            />
          )}
        </>
      )}
      {p.gates !== undefined && (
        <p data-plan-gates="">
          Feature gates: {gates.map(([g, on]) => `${g}=${String(on)}`).join(', ')} (from {p.gates.from})
        </p>
      )}
      {p.policy !== undefined && (
        <p>
          Update policy {p.policy.policy}: {p.policy.decision === 'install' ? 'installs it' : 'holds it'}: {p.policy.reason}.
          {p.policy.decision === 'hold' && ' Approve it with the Approve button above.'}
        </p>
      )}
      {p.policy?.decision === 'hold' && p.policy.approveCommand !== undefined && <EquivalentCommand command={p.policy.approveCommand} />}
    </div>
  );
}
