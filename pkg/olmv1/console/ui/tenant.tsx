/**
 * The Namespace page (`#/namespaces/NAME`, issue 73, decision 0138): as the namespace's admin,
 * what the administrator's ExtensionPolicies let it install (the versions the allowed catalogs
 * serve within each range) and its Extensions with their state, read again on every change of
 * them; Install creates an Extension in the namespace, Remove… deletes one after a confirmation.
 * No cluster rights are needed: the tenant controller makes the least-privilege installer. A
 * request a ClusterCatalog marked Community may serve is refused until the form's checkbox
 * acknowledges it (`olmv1 install --tenant --accept-community`; decision 0148).
 */
import { useState, type FormEvent } from 'react';
import {
  ActionGroup,
  Alert,
  Button,
  Checkbox,
  Form,
  FormGroup,
  FormSelect,
  FormSelectOption,
  Label,
  PageSection,
  TextInput,
  Title,
} from '@patternfly/react-core';
import type { AvailablePackage, RequestSummary } from '../../tenant/index.ts';
import { ApiFailure, postJson } from './api.ts';
import { Table } from './table.tsx';
import { ConfirmRemove } from './confirm-remove.tsx';
import { useLive } from './use-live.tsx';
import { useAction } from './use-action.tsx';

interface NamespaceView {
  namespace: string;
  available: AvailablePackage[];
  requests: RequestSummary[];
  problems: string[];
}

const namespaceHref = (ns: string): string => `#/namespaces/${encodeURIComponent(ns)}`;

/** The Namespace page, or the namespace to open when none is named. */
export function NamespacesPage({ namespace }: { namespace: string }) {
  return namespace === '' ? <ChooseNamespace /> : <NamespacePage namespace={namespace} />;
}

function ChooseNamespace() {
  const [ns, setNs] = useState('');
  const open = (e: FormEvent): void => {
    e.preventDefault();
    if (ns.trim() !== '') window.location.hash = namespaceHref(ns.trim());
  };
  return (
    <PageSection aria-label="Namespaces">
      <Title headingLevel="h1">Namespaces</Title>
      <p>Open a namespace you administer to see what its policies let it install, and what it has installed.</p>
      <Form onSubmit={open} aria-label="Open a namespace">
        <FormGroup label="Namespace" fieldId="tenant-namespace">
          <TextInput id="tenant-namespace" value={ns} placeholder="team-a" onChange={(_e, v) => setNs(v)} />
        </FormGroup>
        <ActionGroup>
          <Button type="submit" variant="primary" isDisabled={ns.trim() === ''}>
            Open
          </Button>
          {ns.trim() === '' && <span className="pf-v6-c-helper-text">Type a namespace's name first.</span>}
        </ActionGroup>
      </Form>
    </PageSection>
  );
}

function NamespacePage({ namespace }: { namespace: string }) {
  const base = `/api/namespaces/${encodeURIComponent(namespace)}`;
  const live = useLive<NamespaceView>(base, [], `${base}/events`);
  const view = live.data;
  const [installing, setInstalling] = useState<AvailablePackage | undefined>();
  const [confirm, setConfirm] = useState<string | undefined>();
  // The service's refusal of the open form's request for want of the community acknowledgement.
  const [community, setCommunity] = useState<CommunityRefusal | undefined>();
  const {
    error: actionError,
    done,
    act,
  } = useAction(() => {
    setInstalling(undefined);
    setCommunity(undefined);
    live.reload();
  });
  const install = (body: RequestBody): Promise<unknown> =>
    postJson(`${base}/requests`, body).catch((e: unknown) => {
      if (e instanceof ApiFailure && e.answer['community'] === true) setCommunity({ catalog: String(e.answer['catalog']), message: e.message });
      throw e;
    });

  return (
    <PageSection aria-label={`Namespace ${namespace}`}>
      <Title headingLevel="h1">Namespace {namespace}</Title>
      <p>
        What the administrator's ExtensionPolicies let this namespace install, and what it has asked for. An install is an Extension in this
        namespace: operator-controller installs it with an installer made for it, so no cluster rights are needed.
      </p>
      {live.error !== undefined && <Alert component="p" variant="danger" isInline title={live.error.message} />}
      {view?.problems.map((p) => (
        <Alert component="p" key={p} variant="warning" isInline title={p} data-tenant-problem="" />
      ))}
      {actionError !== undefined && community === undefined && (
        <Alert component="p" variant="danger" isInline title={actionError} data-tenant-error="" />
      )}
      {done !== undefined && <Alert component="p" variant="success" isInline title={done} data-tenant-done="" />}
      <Title headingLevel="h2">Available to this namespace</Title>
      {view !== undefined && view.available.length === 0 && <p>No ExtensionPolicy allows installing into this namespace.</p>}
      {view !== undefined && view.available.length > 0 && (
        <Table
          label="Available packages"
          head={['Package', 'Versions served', 'Allowed range', 'Channels', 'Upgrades', 'Policy', '']}
          rows={view.available.map((p) => [
            <span key="n" data-available={p.packageName}>
              {p.packageName}
            </span>,
            p.versions.length === 0 ? 'none served' : p.versions.map((v) => v.version).join(', '),
            p.versionRange ?? 'any',
            p.channels.length === 0 ? 'any' : p.channels.join(', '),
            p.upgrades,
            p.policy,
            p.versions.length === 0 ? (
              <span key="i">No allowed version is served</span>
            ) : (
              <Button
                key="i"
                variant="secondary"
                size="sm"
                aria-label={`Install ${p.packageName}…`}
                onClick={() => {
                  setInstalling(p);
                  setCommunity(undefined);
                }}
              >
                Install…
              </Button>
            ),
          ])}
        />
      )}
      {installing !== undefined && (
        <InstallForm
          key={installing.packageName}
          pkg={installing}
          community={community}
          onCancel={() => {
            setInstalling(undefined);
            setCommunity(undefined);
          }}
          onSubmit={(body) =>
            act(install(body), `Extension ${namespace}/${body.name} requested: operator-controller installs it if the policy allows it`)
          }
        />
      )}
      <Title headingLevel="h2">Installed for this namespace</Title>
      {view !== undefined && view.requests.length === 0 && <p>No Extension in this namespace.</p>}
      {view !== undefined && view.requests.length > 0 && (
        <Table
          label="Extensions"
          head={['Name', 'Package', 'Requested', 'Installed', 'Allowed', 'State', 'Message', '']}
          rows={view.requests.map((r) => [
            <span key="n" data-request={r.name}>
              {r.deleting ? `${r.name} (being removed)` : r.name}
            </span>,
            r.packageName,
            r.version === '' ? 'any' : r.version,
            r.installed === undefined ? '-' : r.installed.version,
            <Label key="a" isCompact color={r.allowed === 'True' ? 'green' : r.allowed === 'False' ? 'red' : 'grey'}>
              {r.allowed === 'False' ? `Not allowed (${r.allowedReason})` : r.allowed === 'True' ? 'Allowed' : 'Not judged yet'}
            </Label>,
            <span key="s" data-request-state={r.name}>
              {requestState(r)}
            </span>,
            r.message,
            <ConfirmRemove
              key="r"
              name={r.name}
              confirming={confirm === r.name}
              onAsk={() => setConfirm(r.name)}
              onCancel={() => setConfirm(undefined)}
              onRemove={() =>
                act(
                  postJson(`${base}/requests/${encodeURIComponent(r.name)}/remove`, { uid: r.uid }),
                  `Extension ${namespace}/${r.name} is being removed: its operator is uninstalled, its CRDs kept`,
                )
              }
            />,
          ])}
        />
      )}
    </PageSection>
  );
}

/** The request's state in words. */
function requestState(r: RequestSummary): string {
  if (r.deleting) return 'Being removed';
  if (r.allowed === 'False') return 'Refused';
  if (r.installedStatus === 'True' && r.progressing === 'Succeeded') return 'Installed';
  if (r.allowed !== 'True') return 'Waiting for operator-controller';
  return r.progressing === '' ? 'Installing' : `Installing (${r.progressing})`;
}

interface RequestBody {
  name: string;
  packageName: string;
  version: string;
  channel: string;
  /** The user checked the community warning's box (`--accept-community`). */
  acceptCommunity: boolean;
}

/** The route's 409: a catalog marked Community (its display name) may serve the request; the service's words. */
interface CommunityRefusal {
  catalog: string;
  message: string;
}

/**
 * The install form of one available package: the request's name, a version (or any allowed) and
 * a channel (or any); after a community refusal, its warning and the acknowledgement Install waits for.
 */
function InstallForm({
  pkg,
  community,
  onSubmit,
  onCancel,
}: {
  pkg: AvailablePackage;
  community: CommunityRefusal | undefined;
  onSubmit(body: RequestBody): void;
  onCancel(): void;
}) {
  const [body, setBody] = useState<RequestBody>({
    name: pkg.packageName.slice(0, 63),
    packageName: pkg.packageName,
    version: '',
    channel: '',
    acceptCommunity: false,
  });
  const waiting = community !== undefined && !body.acceptCommunity;
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    if (!waiting) onSubmit(body);
  };
  return (
    <Form onSubmit={submit} aria-label={`Install ${pkg.packageName}`}>
      <Title headingLevel="h3">Install {pkg.packageName}</Title>
      <FormGroup label="Name of the Extension" fieldId="tenant-request-name">
        <TextInput id="tenant-request-name" value={body.name} onChange={(_e, v) => setBody({ ...body, name: v })} />
      </FormGroup>
      <FormGroup label="Version" fieldId="tenant-request-version">
        <FormSelect id="tenant-request-version" value={body.version} onChange={(_e, v) => setBody({ ...body, version: v })}>
          <FormSelectOption value="" label={`The newest allowed (${pkg.versionRange ?? 'any version'}), upgraded as the policy says`} />
          {pkg.versions.map((v) => (
            <FormSelectOption key={v.version} value={v.version} label={v.version} />
          ))}
        </FormSelect>
      </FormGroup>
      {pkg.channels.length > 0 && (
        <FormGroup label="Channel" fieldId="tenant-request-channel">
          <FormSelect id="tenant-request-channel" value={body.channel} onChange={(_e, v) => setBody({ ...body, channel: v })}>
            <FormSelectOption value="" label="Any allowed channel" />
            {pkg.channels.map((c) => (
              <FormSelectOption key={c} value={c} label={c} />
            ))}
          </FormSelect>
        </FormGroup>
      )}
      {community !== undefined && (
        <Alert variant="warning" isInline title="Community content" data-community-warning="">
          <p>{community.message}</p>
          <Checkbox
            id="tenant-community-acknowledged"
            label={`I understand that this package may come from ${community.catalog}, a community catalog, and is not supported`}
            isChecked={body.acceptCommunity}
            onChange={(_e, v) => setBody({ ...body, acceptCommunity: v })}
          />
        </Alert>
      )}
      <ActionGroup>
        <Button type="submit" variant="primary" isDisabled={body.name === '' || waiting}>
          Install
        </Button>
        <Button variant="link" onClick={onCancel}>
          Cancel
        </Button>
        {body.name === '' && <span className="pf-v6-c-helper-text">Name the Extension first.</span>}
        {body.name !== '' && waiting && (
          <span className="pf-v6-c-helper-text">Install is available once you acknowledge that {community.catalog} is a community catalog.</span>
        )}
      </ActionGroup>
    </Form>
  );
}
