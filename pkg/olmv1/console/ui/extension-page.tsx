/**
 * The detail of one ClusterExtension (`#/installed/NAME`): its conditions, Events and release
 * history, read again every 5 s; and uninstall, which first shows what goes and what stays
 * (CRDs and their custom resources are kept) and deletes only on confirmation, as the user.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import {
  ActionGroup,
  Alert,
  Breadcrumb,
  BreadcrumbItem,
  Button,
  DescriptionList,
  DescriptionListDescription,
  DescriptionListGroup,
  DescriptionListTerm,
  PageSection,
  Spinner,
  Title,
} from '@patternfly/react-core';
import { ApiFailure, getJson, postJson, type ExtensionDetail, type UninstallPreview } from './api.ts';
import { POLL_MS, Status } from './installed.tsx';
import { UpgradePlan } from './upgrade.tsx';

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

const crCount = (c: UninstallPreview['keptCrds'][number]): string =>
  c.customResources.length === 0
    ? 'no custom resources'
    : c.customResources.map((n) => `${n.count} in ${n.namespace === '' ? '(cluster)' : n.namespace}`).join(', ');

/** The uninstall preview and its confirmation. */
function Uninstall({ name, onDone, onCancel }: { name: string; onDone(): void; onCancel(): void }) {
  const [p, setP] = useState<UninstallPreview | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
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
    postJson(`/api/extensions/${encodeURIComponent(name)}/uninstall`, { uid: p.uid }).then(onDone, (e: unknown) => {
      setBusy(false);
      setError(e instanceof ApiFailure ? `${e.message}` : String((e as Error).message));
    });
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
            <Alert key={m} variant="warning" isInline isPlain title={m} />
          ))}
          <Title headingLevel="h3">Deleted</Title>
          <ul aria-label="Deleted">
            {p.deleted.map((d) => (
              <li key={d}>{d}</li>
            ))}
          </ul>
          <Title headingLevel="h3">Kept</Title>
          <ul aria-label="Kept">
            {p.keptCrds.map((c) => (
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
            CustomResourceDefinitions and their custom resources are always kept. The installer ServiceAccount and its RBAC stay too:
            operator-controller uninstalls as that ServiceAccount (<code>olmv1 uninstall {name}</code> removes them afterwards).
          </p>
        </>
      )}
      {error !== undefined && (
        <Alert variant="danger" isInline title="Uninstall refused" data-uninstall-error="">
          {error}
        </Alert>
      )}
      <ActionGroup>
        <Button variant="danger" onClick={confirm} isDisabled={p === undefined || busy} isLoading={busy}>
          Uninstall
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
  const [d, setD] = useState<ExtensionDetail | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [gone, setGone] = useState(false);
  const [uninstalling, setUninstalling] = useState(false);
  const [requested, setRequested] = useState(false);
  useEffect(() => {
    const ac = new AbortController();
    const load = (): void => {
      getJson<ExtensionDetail>(`/api/extensions/${encodeURIComponent(name)}`, ac.signal).then(
        (r) => {
          setD(r);
          setError(undefined);
          setGone(false);
        },
        (e: unknown) => {
          if (ac.signal.aborted) return;
          if (e instanceof ApiFailure && e.status === 404) setGone(true);
          else setError(String((e as Error).message));
        },
      );
    };
    load();
    const t = setInterval(load, POLL_MS);
    return () => {
      clearInterval(t);
      ac.abort();
    };
  }, [name]);
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
          variant={requested ? 'success' : 'info'}
          isInline
          title={requested ? `ClusterExtension ${name} is uninstalled` : `There is no ClusterExtension ${name}`}
          data-extension-gone=""
        />
      </PageSection>
    );
  if (d === undefined)
    return (
      <PageSection aria-label="ClusterExtension">
        {crumbs}
        {error === undefined ? <Spinner aria-label="Loading the ClusterExtension" /> : <Alert variant="danger" isInline title={error} />}
      </PageSection>
    );
  const r = d.row;
  return (
    <PageSection aria-label="ClusterExtension" className="olmv1-extension">
      {crumbs}
      <Title headingLevel="h1">{name}</Title>
      {error !== undefined && <Alert variant="danger" isInline title={error} />}
      {d.problems.map((m) => (
        <Alert key={m} variant="warning" isInline isPlain title={m} />
      ))}
      {!d.deleting && !requested && d.progress.state !== 'installed' && (
        <Alert
          variant={d.progress.state === 'failed' ? 'danger' : 'info'}
          isInline
          title={d.progress.state === 'failed' ? 'Not installed' : 'Installing'}
          data-install-progress={d.progress.state}
        >
          {d.progress.progress}
        </Alert>
      )}
      {(d.deleting || requested) && (
        <Alert variant="info" isInline title={`Deleting ClusterExtension ${name}: operator-controller is removing what it installed`} />
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
          onDone={() => {
            setRequested(true);
            setUninstalling(false);
          }}
        />
      )}
      {!d.deleting && !requested && <UpgradePlan name={name} />}
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
      <Title headingLevel="h2">Release history</Title>
      {d.releases.length === 0 ? (
        <p>No release records.</p>
      ) : (
        <Table
          label="Release history"
          head={['Revision', 'Updated', 'Status', 'Bundle', 'Version', 'Objects', 'Description']}
          rows={d.releases.map((x) => [String(x.revision), x.updated || '-', x.status, x.bundle, x.version, String(x.objects), x.description])}
        />
      )}
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
