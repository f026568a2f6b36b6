/**
 * The detail of one ClusterExtension (`#/installed/NAME`): its conditions, Events and release
 * history (with rollback to a revision, release.tsx), read again on every change (use-live.tsx), the objects of its
 * deployed release with their health; and uninstall, which first shows what goes and what stays
 * (CRDs and their custom resources are kept unless the user opts in to deleting them, as
 * `olmv1 uninstall --delete-crds` does, after its preview) and deletes only on confirmation, as the user.
 */
import { useEffect, useRef, useState } from 'react';
import {
  ActionGroup,
  Alert,
  Breadcrumb,
  BreadcrumbItem,
  Button,
  Checkbox,
  DescriptionList,
  DescriptionListDescription,
  DescriptionListGroup,
  DescriptionListTerm,
  PageSection,
  Spinner,
  Title,
} from '@patternfly/react-core';
import { PageBoundary } from './page-boundary.tsx';
import { ApiFailure, getJson, postJson, type CrdDeletionView, type ExtensionDetail, type UninstallPreview } from './api.ts';
import { Status } from './installed.tsx';
import { useLive } from './use-live.tsx';
import { ReleaseHistory, ReleaseObjects } from './release.tsx';
import { Table } from './table.tsx';
import { UpgradePlan } from './upgrade.tsx';
import { CreateInstance } from './create-instance.tsx';
import { ChangeVersion } from './change-version.tsx';
import { EquivalentCommand } from './equivalent-command.tsx';
import { Pods } from './pods.tsx';

export { Table };

const crCount = (c: UninstallPreview['keptCrds'][number]): string =>
  c.customResources.length === 0
    ? 'no custom resources'
    : c.customResources.map((n) => `${n.count} in ${n.namespace === '' ? '(cluster)' : n.namespace}`).join(', ');

const crTotal = (rows: CrdDeletionView['customResourceDefinitions']): number =>
  rows.reduce((n, c) => n + c.customResources.reduce((m, x) => m + x.count, 0), 0);

/** What deleting the CRDs too deletes (`olmv1 uninstall --delete-crds`'s preview), or its refusal. */
function CrdDeletion({ state }: { state: { view: CrdDeletionView } | { error: string } | undefined }) {
  if (state === undefined) return <Spinner size="md" aria-label="Reading what deleting the CustomResourceDefinitions deletes" />;
  if ('error' in state)
    return (
      <Alert component="p" variant="danger" isInline title="The CustomResourceDefinitions cannot be deleted" data-crd-refusal="">
        <pre className="olmv1-log">{state.error}</pre>
      </Alert>
    );
  const rows = state.view.customResourceDefinitions;
  if (rows.length === 0) return <p data-crd-deletion="none">No CustomResourceDefinitions are {state.view.extension}'s.</p>;
  return (
    <div data-crd-deletion="ready">
      <Title headingLevel="h3">Deleted with their custom resources</Title>
      <Table
        label="CustomResourceDefinitions deleted"
        head={['CustomResourceDefinition', 'Kind', 'Namespace', 'Custom resources']}
        rows={rows.flatMap((c) =>
          c.customResources.length === 0
            ? [[c.name, c.kind, '-', '0']]
            : c.customResources.map((n) => [c.name, c.kind, n.namespace === '' ? '(cluster)' : n.namespace, String(n.count)]),
        )}
      />
      <p>
        {rows.length} CustomResourceDefinition{rows.length === 1 ? '' : 's'} and {crTotal(rows)} custom resource
        {crTotal(rows) === 1 ? '' : 's'}, in every namespace, are deleted for good.
      </p>
      <EquivalentCommand command={`olmv1 uninstall ${state.view.extension} --delete-crds --yes`} />
    </div>
  );
}

/** The uninstall preview and its confirmation. */
function Uninstall({ name, onDone, onCancel }: { name: string; onDone(deleted?: CrdDeletionView): void; onCancel(): void }) {
  const [p, setP] = useState<UninstallPreview | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [withCrds, setWithCrds] = useState(false);
  const [crds, setCrds] = useState<{ view: CrdDeletionView } | { error: string } | undefined>();
  const [reads, setReads] = useState(0);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (!withCrds) return;
    const ac = new AbortController();
    setCrds(undefined);
    getJson<{ preview: CrdDeletionView }>(`/api/extensions/${encodeURIComponent(name)}/crd-deletion`, ac.signal).then(
      (r) => setCrds({ view: r.preview }),
      (e: unknown) => (ac.signal.aborted ? undefined : setCrds({ error: String((e as Error).message) })),
    );
    return () => ac.abort();
  }, [name, withCrds, reads]);
  const crdView = withCrds && crds !== undefined && 'view' in crds ? crds.view : undefined;
  useEffect(() => {
    const ac = new AbortController();
    getJson<UninstallPreview>(`/api/extensions/${encodeURIComponent(name)}/uninstall-preview`, ac.signal).then(setP, (e: unknown) =>
      ac.signal.aborted ? undefined : setError(String((e as Error).message)),
    );
    return () => ac.abort();
  }, [name]);
  useEffect(() => heading.current?.focus(), [p]);
  const confirm = (): void => {
    if (p === undefined) return;
    setBusy(true);
    setError(undefined);
    const body = crdView === undefined ? { uid: p.uid } : { uid: p.uid, deleteCrds: crdView.digest };
    postJson<{ deleted?: CrdDeletionView; preview?: CrdDeletionView }>(`/api/extensions/${encodeURIComponent(name)}/uninstall`, body).then(
      (r) => onDone(r.deleted),
      (e: unknown) => {
        setBusy(false);
        setError(e instanceof ApiFailure ? `${e.message}` : String((e as Error).message));
        // Changed since the preview: show the new one; the user confirms again.
        if (e instanceof ApiFailure && e.status === 409 && withCrds) setReads((n) => n + 1);
      },
    );
  };
  return (
    <section className="olmv1-uninstall" aria-labelledby="uninstall-heading" data-uninstall-preview={p === undefined ? 'loading' : 'ready'}>
      <h2 className="pf-v6-c-title pf-m-xl" id="uninstall-heading" ref={heading} tabIndex={-1}>
        Uninstall {name}?
      </h2>
      {p === undefined && error === undefined && <Spinner size="md" aria-label="Reading what uninstall deletes" />}
      {p !== undefined && (
        <>
          {p.problems.map((m) => (
            <Alert component="p" key={m} variant="warning" isInline isPlain title={m} />
          ))}
          <Title headingLevel="h3">Deleted</Title>
          <ul aria-label="Deleted">
            {p.deleted.map((d) => (
              <li key={d}>{d}</li>
            ))}
          </ul>
          <Title headingLevel="h3">Kept</Title>
          <ul aria-label="Kept">
            {p.keptCrds
              .filter((c) => !(crdView?.customResourceDefinitions.some((d) => d.name === c.name) ?? false))
              .map((c) => (
                <li key={c.name} data-kept-crd={c.name}>
                  CustomResourceDefinition {c.name}: {crCount(c)}
                  {c.note === '' ? '' : ` (${c.note})`}
                </li>
              ))}
            {p.kept.map((k) => (
              <li key={k}>{k}</li>
            ))}
          </ul>
          <p>
            {withCrds ? '' : 'CustomResourceDefinitions and their custom resources are kept. '}The installer ServiceAccount and its RBAC stay:
            operator-controller uninstalls as that ServiceAccount (<code>olmv1 uninstall {name}</code> removes them afterwards).
          </p>
          <Checkbox
            id="uninstall-delete-crds"
            label="Also delete the CustomResourceDefinitions and their custom resources"
            description="All of their custom resources in every namespace are deleted with them. Refused when another extension owns or uses one."
            isChecked={withCrds}
            onChange={(_e, checked) => setWithCrds(checked)}
            isDisabled={busy}
          />
          {withCrds && <CrdDeletion state={crds} />}
        </>
      )}
      {error !== undefined && (
        <Alert component="p" variant="danger" isInline title="Uninstall refused" data-uninstall-error="">
          {error}
        </Alert>
      )}
      <ActionGroup>
        <Button variant="danger" onClick={confirm} isDisabled={p === undefined || busy || (withCrds && crdView === undefined)} isLoading={busy}>
          {withCrds ? 'Uninstall and delete the CustomResourceDefinitions' : 'Uninstall'}
        </Button>
        <Button variant="link" onClick={onCancel}>
          Cancel
        </Button>
      </ActionGroup>
    </section>
  );
}

/** The detail page of ClusterExtension `name`. */
export function ExtensionPage({ name }: { name: string }) {
  const live = useLive<ExtensionDetail>(`/api/extensions/${encodeURIComponent(name)}`, ['extensions']);
  const d = live.data;
  const gone = live.error instanceof ApiFailure && live.error.gone;
  const error = gone ? undefined : live.error?.message;
  const [uninstalling, setUninstalling] = useState(false);
  const [requested, setRequested] = useState(false);
  const [crdsDeleted, setCrdsDeleted] = useState<CrdDeletionView | undefined>();
  const crumbs = (
    <Breadcrumb>
      <BreadcrumbItem to="#/installed">Installed</BreadcrumbItem>
      <BreadcrumbItem isActive>{name}</BreadcrumbItem>
    </Breadcrumb>
  );
  if (gone)
    return (
      <PageSection aria-label="ClusterExtension">
        {crumbs}
        <Title headingLevel="h1">{name}</Title>
        <Alert
          component="p"
          variant={requested ? 'success' : 'info'}
          isInline
          title={requested ? `ClusterExtension ${name} is uninstalled` : `There is no ClusterExtension ${name}`}
          data-extension-gone=""
        >
          {crdsDeleted !== undefined && (
            <span data-crds-deleted="">
              Deleted {crdsDeleted.customResourceDefinitions.length} CustomResourceDefinition
              {crdsDeleted.customResourceDefinitions.length === 1 ? '' : 's'} and {crTotal(crdsDeleted.customResourceDefinitions)} custom resource
              {crTotal(crdsDeleted.customResourceDefinitions) === 1 ? '' : 's'}: {crdsDeleted.customResourceDefinitions.map((c) => c.name).join(', ')}
            </span>
          )}
        </Alert>
      </PageSection>
    );
  if (d === undefined)
    return (
      <PageSection aria-label="ClusterExtension">
        {crumbs}
        {error === undefined ? (
          <Spinner aria-label="Loading the ClusterExtension" />
        ) : (
          <Alert component="p" variant="danger" isInline title={error} />
        )}
      </PageSection>
    );
  const r = d.row;
  return (
    <PageSection aria-label="ClusterExtension" className="olmv1-extension">
      {crumbs}
      <Title headingLevel="h1">{name}</Title>
      {error !== undefined && <Alert component="p" variant="danger" isInline title={error} />}
      {d.problems.map((m) => (
        <Alert component="p" key={m} variant="warning" isInline isPlain title={m} />
      ))}
      {!d.deleting && !requested && d.progress.state !== 'installed' && (
        <Alert
          component="p"
          variant={d.progress.state === 'failed' || d.progress.state === 'retrying' ? 'danger' : 'info'}
          isInline
          title={
            d.progress.state === 'retrying'
              ? `Failing: operator-controller is retrying${r.version === '' ? '' : ` (version ${r.version} stays installed)`}`
              : d.progress.state === 'failed'
                ? 'Not installed'
                : 'Installing'
          }
          data-install-progress={d.progress.state}
        >
          {d.progress.progress}
        </Alert>
      )}
      {(d.deleting || requested) && (
        <Alert component="p" variant="info" isInline title={`Deleting ClusterExtension ${name}: operator-controller is removing what it installed`} />
      )}
      <DescriptionList isHorizontal isCompact>
        {(
          [
            ['Package', r.package],
            ['Installed version', r.version || '-'],
            ['Namespace', r.namespace],
            ['ServiceAccount', d.serviceAccount],
          ] as const
        ).map(([k, v]) => (
          <DescriptionListGroup key={k}>
            <DescriptionListTerm>{k}</DescriptionListTerm>
            <DescriptionListDescription>{v}</DescriptionListDescription>
          </DescriptionListGroup>
        ))}
        <DescriptionListGroup>
          <DescriptionListTerm>Status</DescriptionListTerm>
          <DescriptionListDescription>
            Installed <Status c={r.installed} good="True" /> Progressing <Status c={r.progressing} good="True" /> Healthy{' '}
            <Status c={r.healthy} good="True" /> Upgrade available <Status c={r.upgradeAvailable} good="False" bad="blue" />
            {d.readyNodes === 0 && r.healthy.status !== 'True' && (
              <p data-no-ready-node="">
                No Node of the cluster is Ready, so no Pod runs: the operator&apos;s Deployments cannot become available, and Healthy stays False
                until a Node joins.
              </p>
            )}
          </DescriptionListDescription>
        </DescriptionListGroup>
      </DescriptionList>
      {!uninstalling && !d.deleting && !requested && (
        <ActionGroup>
          <Button variant="secondary" isDanger onClick={() => setUninstalling(true)}>
            Uninstall…
          </Button>
        </ActionGroup>
      )}
      {uninstalling && !requested && (
        <Uninstall
          name={name}
          onCancel={() => setUninstalling(false)}
          onDone={(deleted) => {
            setCrdsDeleted(deleted);
            setRequested(true);
            setUninstalling(false);
          }}
        />
      )}
      {!d.deleting && !requested && (
        <PageBoundary what="The upgrade plan">
          <UpgradePlan name={name} installed={`${d.row.version}/${d.releases.length}`} />
        </PageBoundary>
      )}
      {!d.deleting && !requested && (
        <PageBoundary what="Changing version or channels">
          <ChangeVersion name={name} />
        </PageBoundary>
      )}
      {!d.deleting && !requested && (
        <PageBoundary what="Create instance">
          <CreateInstance name={name} />
        </PageBoundary>
      )}
      <Title headingLevel="h2">Conditions</Title>
      {d.conditions.length === 0 ? (
        <p>No conditions yet: operator-controller has not reconciled it.</p>
      ) : (
        <Table
          label="Conditions"
          head={['Type', 'Status', 'Reason', 'Message', 'Last transition']}
          rows={d.conditions.map((c) => [c.type, c.status, c.reason, c.message, c.lastTransitionTime])}
        />
      )}
      <PageBoundary what="The release history">
        <ReleaseHistory name={name} releases={d.releases} canWrite={!d.deleting && !requested} />
      </PageBoundary>
      <PageBoundary what="The release's objects">
        <ReleaseObjects name={name} />
      </PageBoundary>
      <PageBoundary what="Pods">
        <Pods name={name} />
      </PageBoundary>
      <Title headingLevel="h2">Events</Title>
      {d.events.length === 0 ? (
        <p>No Events.</p>
      ) : (
        <Table
          label="Events"
          head={['Last seen', 'Type', 'Reason', 'Count', 'Message']}
          rows={d.events.map((e) => [e.lastSeen || '-', e.type, e.reason, String(e.count), e.message])}
        />
      )}
    </PageSection>
  );
}
