/**
 * The upgrade plan of a ClusterExtension as `olmv1 upgrade plan NAME` prints it, and Approve,
 * which runs `olmv1 upgrade approve NAME VERSION` as the user (the version the plan shows, so
 * only what was shown is approved).
 */
import { useState } from 'react';
import { ActionGroup, Alert, Button, CodeBlock, CodeBlockCode, Spinner, Title } from '@patternfly/react-core';
import { getJson, postJson } from './api.ts';
import { storedObjectLines, type PlanCrds } from './stored-objects.ts';

interface Plan extends PlanCrds {
  installed: { bundle: string; version: string };
  pick: { bundle: string; version: string; catalog: string; reason: string } | null;
  upToDate: boolean;
  error?: string;
  policy?: { policy: string; decision: 'install' | 'hold'; reason: string; approvedBundle: string };
}

/** The plan section of an extension's page. */
export function UpgradePlan({ name }: { name: string }) {
  const [plan, setPlan] = useState<{ plan: Plan; text: string } | undefined>();
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [approved, setApproved] = useState<string | undefined>();
  const [approveError, setApproveError] = useState<string | undefined>();
  const load = (): void => {
    setLoading(true);
    setError(undefined);
    getJson<{ plan: Plan; text: string }>(`/api/extensions/${encodeURIComponent(name)}/plan`).then(
      (p) => {
        setPlan(p);
        setLoading(false);
      },
      (e: unknown) => {
        setError(String((e as Error).message));
        setLoading(false);
      },
    );
  };
  const approve = (version: string): void => {
    setApproveError(undefined);
    postJson<{ approved: string }>(`/api/extensions/${encodeURIComponent(name)}/approve`, { version }).then(
      (r) => setApproved(r.approved),
      (e: unknown) => setApproveError(String((e as Error).message)),
    );
  };
  const p = plan?.plan;
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
      {error !== undefined && <Alert variant="danger" isInline title={error} data-plan-error="" />}
      {approveError !== undefined && <Alert variant="danger" isInline title={approveError} data-approve-error="" />}
      {approved !== undefined && <Alert variant="success" isInline title={approved} data-approved="" />}
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
            <Alert variant="warning" isInline title="Stored objects that fail the new CRD schema" data-plan-stored-objects="">
              <pre>{stored.join('\n')}</pre>
            </Alert>
          )}
          <CodeBlock>
            <CodeBlockCode>{plan?.text ?? ''}</CodeBlockCode>
          </CodeBlock>
        </>
      )}
    </section>
  );
}
