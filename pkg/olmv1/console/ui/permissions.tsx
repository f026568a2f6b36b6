/**
 * The permissions an install of a package needs: the ServiceAccount and RBAC `olmv1 rbac`
 * computes for its head bundle (pulled from its image), for an install namespace the user picks.
 */
import { useState, type FormEvent } from 'react';
import { ActionGroup, Alert, Button, CodeBlock, CodeBlockCode, Form, FormGroup, Spinner, TextInput, Title } from '@patternfly/react-core';
import { getJson } from './api.ts';

/** The Permissions section of a package page. */
export function Permissions({ catalog, name }: { catalog: string; name: string }) {
  const [namespace, setNamespace] = useState(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(name) ? name : 'operators');
  const [r, setR] = useState<{ yaml: string; warnings: string; image: string } | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [loading, setLoading] = useState(false);
  const show = (e: FormEvent): void => {
    e.preventDefault();
    setLoading(true);
    setError(undefined);
    getJson<{ yaml: string; warnings: string; image: string }>(
      `/api/packages/${encodeURIComponent(catalog)}/${encodeURIComponent(name)}/rbac?namespace=${encodeURIComponent(namespace)}`,
    ).then(
      (x) => {
        setR(x);
        setLoading(false);
      },
      (err: unknown) => {
        setError(String((err as Error).message));
        setLoading(false);
      },
    );
  };
  return (
    <section aria-labelledby="permissions-heading" data-permissions={r === undefined ? (error === undefined ? 'none' : 'error') : 'ready'}>
      <Title headingLevel="h2" id="permissions-heading">
        Permissions an install needs
      </Title>
      <Form isHorizontal onSubmit={show} aria-label="Permissions">
        <FormGroup label="Install namespace" fieldId="rbac-namespace">
          <TextInput id="rbac-namespace" value={namespace} onChange={(_e, v) => setNamespace(v)} />
        </FormGroup>
        <ActionGroup>
          <Button type="submit" variant="secondary" isDisabled={loading}>
            Show permissions
          </Button>
        </ActionGroup>
      </Form>
      {loading && <Spinner size="md" aria-label="Pulling the bundle" />}
      {error !== undefined && (
        <Alert variant="warning" isInline title="The permissions cannot be computed here" data-permissions-error="">
          {error}
        </Alert>
      )}
      {r !== undefined && (
        <>
          <p>
            The least-privilege ServiceAccount and RBAC <code>olmv1 install</code> creates for the head bundle {r.image}:
          </p>
          {r.warnings.trim() !== '' && <Alert variant="info" isInline isPlain title={r.warnings.trim()} />}
          <CodeBlock>
            <CodeBlockCode data-rbac-yaml="">{r.yaml}</CodeBlockCode>
          </CodeBlock>
        </>
      )}
    </section>
  );
}
