/**
 * The release parts of an extension's page: the objects of the deployed release with their
 * health as operator-controller's health step judges them (read as the user again whenever one of
 * them or the extension changes: watched while shown; an object
 * the user may not read shows the API server's refusal), and rollback to a superseded revision,
 * which after a confirmation naming the revision runs `olmv1 release rollback NAME REVISION` as
 * the user and shows what it printed, or its refusal as it wrote it. Release content is text only.
 */
import { useEffect, useRef, useState } from 'react';
import { EquivalentCommand } from './equivalent-command.tsx';
import { ActionGroup, Alert, Button, CodeBlock, CodeBlockCode, Label, Spinner, Title } from '@patternfly/react-core';
import { ApiFailure, postJson, type ExtensionDetail, type ReleaseObjectsView } from './api.ts';
import { useLive } from './use-live.tsx';
import { Table } from './table.tsx';

const HEALTH_COLOR = { Healthy: 'green', Unhealthy: 'red', Present: 'grey', NotFound: 'orange', Unreadable: 'orange' } as const;
const HEALTH_TEXT = {
  Healthy: 'Healthy',
  Unhealthy: 'Unhealthy',
  Present: 'Present (not judged)',
  NotFound: 'Not found',
  Unreadable: 'Not readable',
} as const;

/** The objects of the deployed release and their health. */
export function ReleaseObjects({ name }: { name: string }) {
  const path = `/api/extensions/${encodeURIComponent(name)}/objects`;
  const live = useLive<ReleaseObjectsView>(path, ['extensions'], `${path}/events`);
  const v = live.data;
  const error = live.error?.message;
  return (
    <section aria-labelledby="release-objects-heading" data-release-objects={v === undefined ? 'loading' : 'ready'}>
      <Title headingLevel="h2" id="release-objects-heading">
        Objects of the release
      </Title>
      {error !== undefined && <Alert component="p" variant="warning" isInline isPlain title={`The objects of the release: ${error}`} />}
      {v === undefined && error === undefined && <Spinner size="md" aria-label="Reading the objects of the release" />}
      {v !== undefined && v.revision === 0 && <p>No deployed revision.</p>}
      {v !== undefined && v.revision > 0 && (
        <>
          <p data-release-verdict="">
            Revision {v.revision} ({v.bundle}, version {v.version}), read as you.{' '}
            {v.verdict === undefined
              ? 'Not every object the health step judges could be read, so no verdict.'
              : `As the health step judges them: Healthy ${v.verdict.status} (${v.verdict.reason}): ${v.verdict.message}`}
          </p>
          <Table
            label="Objects of the release"
            head={['Kind', 'Namespace/name', 'Health', 'Details']}
            rows={v.objects.map((o) => [
              o.kind,
              o.namespace === '' ? o.name : `${o.namespace}/${o.name}`,
              <Label key="h" color={HEALTH_COLOR[o.health]} isCompact>
                {HEALTH_TEXT[o.health]}
              </Label>,
              o.message,
            ])}
          />
        </>
      )}
    </section>
  );
}

type Revision = ExtensionDetail['releases'][number];

/**
 * The release history with a Roll back button per superseded revision (Helm records or
 * ClusterObjectSets alike: `olmv1 release rollback` pins the bundle either way), and the
 * rollback's confirmation and outcome.
 */
export function ReleaseHistory({ name, releases, canWrite }: { name: string; releases: Revision[]; canWrite: boolean }) {
  const [asked, setAsked] = useState<Revision | undefined>();
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<{ revision: number; report: string } | undefined>();
  const [error, setError] = useState<string | undefined>();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [asked]);
  const confirm = (r: Revision): void => {
    setBusy(true);
    setError(undefined);
    postJson<{ report: string }>(`/api/extensions/${encodeURIComponent(name)}/rollback`, { revision: r.revision }).then(
      (out) => {
        setBusy(false);
        setAsked(undefined);
        setDone({ revision: r.revision, report: out.report });
      },
      (e: unknown) => {
        setBusy(false);
        setError(e instanceof ApiFailure ? e.message : String((e as Error).message));
      },
    );
  };
  return (
    <section aria-labelledby="release-history-heading">
      <Title headingLevel="h2" id="release-history-heading">
        Release history
      </Title>
      {releases.length === 0 ? (
        <p>No release records.</p>
      ) : (
        <Table
          label="Release history"
          head={['Revision', 'Updated', 'Status', 'Bundle', 'Version', 'Objects', 'Description', 'Actions']}
          rows={releases.map((x) => [
            String(x.revision),
            x.updated || '-',
            x.status,
            x.bundle,
            x.version,
            String(x.objects),
            x.description,
            canWrite && x.status === 'superseded' ? (
              <Button
                key="rb"
                variant="secondary"
                size="sm"
                onClick={() => {
                  setAsked(x);
                  setError(undefined);
                  setDone(undefined);
                }}
                isDisabled={busy}
              >
                Roll back to revision {x.revision}…
              </Button>
            ) : (
              ''
            ),
          ])}
        />
      )}
      {asked !== undefined && (
        <section className="olmv1-rollback" aria-labelledby="rollback-heading" data-rollback-confirm={asked.revision}>
          <h3 className="pf-v6-c-title pf-m-lg" id="rollback-heading" ref={heading} tabIndex={-1}>
            Roll back {name} to revision {asked.revision} ({asked.bundle}, version {asked.version})?
          </h3>
          <p>
            The spec pins version {asked.version} (upgrade constraint policy SelfCertified) and approves {asked.bundle}, after checking the way back
            against the cluster's CRDs and catalogs. operator-controller then installs it and records a new revision; upgrades stay held by the pin
            until it is removed.
          </p>
          <EquivalentCommand command={`olmv1 release rollback ${name} ${asked.revision}`} />
          <ActionGroup>
            <Button variant="danger" onClick={() => confirm(asked)} isLoading={busy} isDisabled={busy}>
              Roll back
            </Button>
            <Button variant="link" onClick={() => setAsked(undefined)} isDisabled={busy}>
              Cancel
            </Button>
          </ActionGroup>
        </section>
      )}
      {error !== undefined && (
        <Alert component="p" variant="danger" isInline title="Rollback refused" data-rollback-error="">
          <pre className="olmv1-log">{error}</pre>
        </Alert>
      )}
      {done !== undefined && (
        <Alert component="p" variant="success" isInline title={`Rolling back to revision ${done.revision}`} data-rollback-done={done.revision}>
          <CodeBlock>
            <CodeBlockCode>{done.report}</CodeBlockCode>
          </CodeBlock>
        </Alert>
      )}
    </section>
  );
}
