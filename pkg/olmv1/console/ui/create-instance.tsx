/**
 * "Create instance" on an extension's page (issue 71, OperatorHub's): the examples its installed
 * bundle offers (`alm-examples`) for the APIs it provides; one is edited as YAML and written as the
 * user. *Create* first asks the API server for a dry run, which checks the object against the CRD's
 * schema (unknown fields refused) and stores nothing, and writes only if that passes.
 */
import { useState } from 'react';
import { ActionGroup, Alert, Button, Form, FormGroup, TextArea, Title } from '@patternfly/react-core';
import { postJson } from './api.ts';
import { useLive } from './use-live.tsx';

interface Offer {
  namespace: string;
  apis: { apiVersion: string; kind: string }[];
  examples: { apiVersion: string; kind: string; yaml: string }[];
}

/** The section; nothing when the installed bundle provides no API. */
export function CreateInstance({ name }: { name: string }) {
  const path = `/api/extensions/${encodeURIComponent(name)}`;
  // The installed bundle's examples, read again when an extension changes (another bundle installed).
  const offer = useLive<Offer>(`${path}/examples`, ['extensions']).data;
  const [yaml, setYaml] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [done, setDone] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  if (offer === undefined || offer.apis.length === 0) return null;
  const create = async (): Promise<void> => {
    setBusy(true);
    setError(undefined);
    setDone(undefined);
    try {
      await postJson(`${path}/instances`, { yaml, dryRun: true });
      const answer = await postJson<{ created: string }>(`${path}/instances`, { yaml });
      setDone(`${answer.created} created`);
      setYaml(undefined);
    } catch (e) {
      setError(String((e as Error).message));
    } finally {
      setBusy(false);
    }
  };
  const blank = (api: Offer['apis'][number]): string =>
    `apiVersion: ${api.apiVersion}\nkind: ${api.kind}\nmetadata:\n  name: my-${api.kind.toLowerCase()}\n  namespace: ${offer.namespace}\nspec: {}\n`;
  return (
    <section aria-label="Create instance">
      <Title headingLevel="h2">Create instance</Title>
      <p>
        The APIs this extension provides. Start from the operator's example, edit it, and create it as you: the API server checks it against the
        CustomResourceDefinition's schema first.
      </p>
      <ActionGroup>
        {offer.apis.map((api) => {
          const example = offer.examples.find((x) => x.apiVersion === api.apiVersion && x.kind === api.kind);
          return (
            <Button
              key={`${api.apiVersion}/${api.kind}`}
              variant="secondary"
              size="sm"
              onClick={() => {
                setError(undefined);
                setDone(undefined);
                setYaml(example?.yaml ?? blank(api));
              }}
            >
              Create {api.kind}…
            </Button>
          );
        })}
      </ActionGroup>
      {done !== undefined && <Alert component="p" variant="success" isInline title={done} data-instance-done="" />}
      {yaml !== undefined && (
        <Form
          aria-label="The instance"
          onSubmit={(e) => {
            e.preventDefault();
            void create();
          }}
        >
          <FormGroup label="YAML" fieldId="instance-yaml">
            <TextArea id="instance-yaml" value={yaml} onChange={(_e, v) => setYaml(v)} rows={14} resizeOrientation="vertical" spellCheck={false} />
          </FormGroup>
          {error !== undefined && <Alert component="p" variant="danger" isInline title={error} data-instance-error="" />}
          <ActionGroup>
            <Button type="submit" variant="primary" isLoading={busy} isDisabled={busy}>
              Create
            </Button>
            <Button variant="link" onClick={() => setYaml(undefined)}>
              Cancel
            </Button>
          </ActionGroup>
        </Form>
      )}
    </section>
  );
}
