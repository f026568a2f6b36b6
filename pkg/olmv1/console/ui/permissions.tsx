/**
 * The permissions an install of a package needs: the ServiceAccount and RBAC `olmv1 rbac`
 * computes for its head bundle (pulled from its image), for an install namespace the user picks:
 * its rules as a table (permissions-view.ts), the objects as YAML.
 */
import { useState, type FormEvent } from 'react';
import { ActionGroup, Alert, Button, CodeBlock, CodeBlockCode, Form, FormGroup, Spinner, TextInput, Title } from '@patternfly/react-core';
import { getJson } from './api.ts';
import { permissionRows } from './permissions-view.ts';
import { Table } from './table.tsx';

/** The JSON of `/api/packages/CATALOG/PKG/rbac`. */
interface RbacAnswer {
  image: string;
  yaml: string;
  objects: Parameters<typeof permissionRows>[0];
  warnings: string[];
  escalations: { subject: string; reason: string; expected: boolean }[];
}

/** The Permissions section of a package page. */
export function Permissions({ catalog, name }: { catalog: string; name: string }) {
  const [namespace, setNamespace] = useState(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(name) ? name : 'operators');
  const [r, setR] = useState<RbacAnswer | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [loading, setLoading] = useState(false);
  const show = (e: FormEvent): void => {
    e.preventDefault();
    setLoading(true);
    setError(undefined);
    getJson<RbacAnswer>(
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
        <Alert component="p" variant="warning" isInline title="The permissions cannot be computed here" data-permissions-error="">
          {error}
        </Alert>
      )}
      {r !== undefined && (
        <>
          <p>
            The least-privilege ServiceAccount and RBAC <code>olmv1 install</code> creates for the head bundle {r.image}:
          </p>
          {r.warnings.length > 0 && <Alert component="p" variant="info" isInline isPlain title={r.warnings.join('\n')} />}
          {r.escalations.length > 0 && (
            <Alert component="p" variant="warning" isInline isPlain title="Grants that amount to privilege escalation">
              {r.escalations.map((e) => `${e.subject}: ${e.reason}${e.expected ? ' (expected)' : ''}`).join('\n')}
            </Alert>
          )}
          <div data-permission-rules="">
            <Table
              label="Rules the installer ServiceAccount is granted"
              head={['Scope', 'Role', 'Rule', 'Escalates']}
              rows={permissionRows(r.objects, r.escalations).map((p) => [p.scope, p.role, p.rule, p.escalates ? 'yes' : 'no'])}
            />
          </div>
          <CodeBlock>
            <CodeBlockCode data-rbac-yaml="">{r.yaml}</CodeBlockCode>
          </CodeBlock>
        </>
      )}
    </section>
  );
}
