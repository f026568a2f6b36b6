/**
 * "Version and channels" on an extension's page (issue 71, OperatorHub's change of channel or
 * version after install): what the extension asks its catalogs for, changed by `olmv1 update`'s
 * service as the user. *Preview* lists each field's old and new value (a dry run); *Apply* writes
 * exactly that, and operator-controller then resolves and upgrades as for any spec change.
 */
import { useState } from 'react';
import { ActionGroup, Alert, Button, Form, FormGroup, TextInput, Title } from '@patternfly/react-core';
import { postJson } from './api.ts';
import { useLive } from './use-live.tsx';

interface Source {
  version: string;
  channels: string[];
}

/** The section. */
export function ChangeVersion({ name }: { name: string }) {
  const path = `/api/extensions/${encodeURIComponent(name)}`;
  // Read again on every change of an extension (its spec included).
  const live = useLive<Source>(`${path}/source`, ['extensions']);
  const source = live.data;
  const [form, setForm] = useState<{ version: string; channels: string } | undefined>();
  const [preview, setPreview] = useState<string[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [done, setDone] = useState<string | undefined>();
  if (source === undefined) return null;
  const send = async (dryRun: boolean): Promise<void> => {
    if (form === undefined) return;
    setError(undefined);
    try {
      const r = await postJson<{ lines: string[]; updated: boolean }>(`${path}/update`, { ...form, dryRun });
      if (dryRun) return setPreview(r.lines);
      setDone(`ClusterExtension ${name} updated: ${r.lines.join('; ')}. operator-controller resolves it again.`);
      setForm(undefined);
      setPreview(undefined);
      live.reload();
    } catch (e) {
      setError(String((e as Error).message));
    }
  };
  const edit = (change: Partial<{ version: string; channels: string }>): void => {
    if (form !== undefined) setForm({ ...form, ...change });
    setPreview(undefined);
  };
  return (
    <section aria-label="Version and channels">
      <Title headingLevel="h2">Version and channels</Title>
      <p data-requested="">
        Asks for version {source.version === '' ? 'any' : source.version}, from{' '}
        {source.channels.length === 0 ? 'any channel' : `channel ${source.channels.join(', ')}`}.
      </p>
      {done !== undefined && <Alert component="p" variant="success" isInline title={done} data-update-done="" />}
      {form === undefined ? (
        <Button
          variant="secondary"
          size="sm"
          onClick={() => {
            setDone(undefined);
            setForm({ version: source.version, channels: source.channels.join(', ') });
          }}
        >
          Change version or channels…
        </Button>
      ) : (
        <Form
          aria-label="Change version or channels"
          onSubmit={(e) => {
            e.preventDefault();
            void send(preview === undefined);
          }}
        >
          <FormGroup label="Version or range (empty: any)" fieldId="update-version">
            <TextInput id="update-version" value={form.version} onChange={(_e, v) => edit({ version: v })} />
          </FormGroup>
          <FormGroup label="Channels, separated by commas (empty: any)" fieldId="update-channels">
            <TextInput id="update-channels" value={form.channels} onChange={(_e, v) => edit({ channels: v })} />
          </FormGroup>
          {preview !== undefined &&
            (preview.length === 0 ? (
              <p data-update-preview="">Nothing changes.</p>
            ) : (
              <ul data-update-preview="">
                {preview.map((l) => (
                  <li key={l}>{l}</li>
                ))}
              </ul>
            ))}
          {error !== undefined && <Alert component="p" variant="danger" isInline title={error} data-update-error="" />}
          <ActionGroup>
            <Button type="submit" variant="primary" isDisabled={preview !== undefined && preview.length === 0}>
              {preview === undefined ? 'Preview' : 'Apply'}
            </Button>
            <Button variant="link" onClick={() => (setForm(undefined), setPreview(undefined))}>
              Cancel
            </Button>
            {preview !== undefined && preview.length === 0 && <span className="pf-v6-c-helper-text">Nothing to apply: change a field first.</span>}
          </ActionGroup>
        </Form>
      )}
    </section>
  );
}
