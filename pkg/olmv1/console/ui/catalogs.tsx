/**
 * The Catalogs page (`#/catalogs`): every ClusterCatalog with Serving and Progressing (reason and
 * message), last unpacked, poll interval, priority and availability, read again on every change of a ClusterCatalog; add a
 * catalog (`olmv1 catalog add`) and remove one after a confirmation (`olmv1 catalog remove`), as the user.
 */
import { useState, type FormEvent } from 'react';
import { ActionGroup, Alert, Button, Form, FormGroup, PageSection, TextInput, Title } from '@patternfly/react-core';
import { postJson } from './api.ts';
import type { CatalogView } from '../admin.ts';
import { Table } from './extension-page.tsx';
import { ConfirmRemove } from './confirm-remove.tsx';
import { Status } from './installed.tsx';
import { useLive } from './use-live.tsx';
import { useAction } from './use-action.tsx';

/** The Catalogs page. */
export function CatalogsPage() {
  const live = useLive<{ catalogs: CatalogView[] }>('/api/catalogs', ['catalogs']);
  const rows = live.data?.catalogs;
  const error = live.error?.message;
  const [confirm, setConfirm] = useState<string | undefined>();
  const [form, setForm] = useState({ name: '', image: '', priority: '', pollInterval: '' });
  const { error: actionError, done, act } = useAction(() => live.reload());

  const add = (e: FormEvent): void => {
    e.preventDefault();
    act(postJson('/api/catalogs', form), `ClusterCatalog ${form.name} created: catalogd unpacks it`);
  };
  const field = (id: keyof typeof form, label: string, hint: string) => (
    <FormGroup label={label} fieldId={`catalog-${id}`}>
      <TextInput id={`catalog-${id}`} value={form[id]} placeholder={hint} onChange={(_e, v) => setForm({ ...form, [id]: v })} />
    </FormGroup>
  );
  return (
    <PageSection aria-label="Catalogs">
      <Title headingLevel="h1">Catalogs</Title>
      {error !== undefined && <Alert component="p" variant="danger" isInline title={error} />}
      {actionError !== undefined && <Alert component="p" variant="danger" isInline title={actionError} data-catalog-error="" />}
      {done !== undefined && <Alert component="p" variant="success" isInline title={done} data-catalog-done="" />}
      {rows !== undefined && rows.length === 0 && <p>No ClusterCatalog yet.</p>}
      {rows !== undefined && rows.length > 0 && (
        <Table
          label="ClusterCatalogs"
          head={['Name', 'Serving', 'Progressing', 'Last unpacked', 'Poll interval', 'Priority', 'Availability', 'Image', 'Actions']}
          rows={rows.map((c) => [
            <span key="n" data-catalog={c.name}>
              {c.name}
            </span>,
            <Status key="s" c={c.serving} good="True" />,
            <span key="p">
              <Status c={c.progressing} good="True" />
              {/* Its message when catalogd retries or is blocked (on success it only says so: on hover). */}
              {c.progressing.message === '' || c.progressing.reason === 'Succeeded' ? '' : ` ${c.progressing.message}`}
            </span>,
            c.lastUnpacked || '-',
            c.pollInterval || '-',
            String(c.priority),
            c.availability,
            c.image,
            <ConfirmRemove
              key="r"
              name={c.name}
              confirming={confirm === c.name}
              onAsk={() => setConfirm(c.name)}
              onCancel={() => setConfirm(undefined)}
              onRemove={() => act(postJson(`/api/catalogs/${encodeURIComponent(c.name)}/remove`, {}), `ClusterCatalog ${c.name} is being removed`)}
            />,
          ])}
        />
      )}
      <Title headingLevel="h2">Add a catalog</Title>
      <Form onSubmit={add} aria-label="Add a catalog">
        {field('name', 'Name', 'my-catalog')}
        {field('image', 'Image', 'quay.io/acme/catalog:latest')}
        {field('priority', 'Priority', '0')}
        {field('pollInterval', 'Poll interval', '10m')}
        <ActionGroup>
          <Button type="submit" variant="primary">
            Add
          </Button>
        </ActionGroup>
      </Form>
    </PageSection>
  );
}
