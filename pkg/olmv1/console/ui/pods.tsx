/**
 * The operator's Pods on an extension's page (issue 71, OperatorHub's links to the operator's
 * Pods and logs): the Pods its Deployments select, with phase, readiness and restarts, read again
 * when the extension's objects change; *Logs* shows the last 200 lines of a container's log, as
 * text, read as the user.
 */
import { useState } from 'react';
import { Alert, Button, Title } from '@patternfly/react-core';
import type { PodRow } from '../pods.ts';
import { getJson } from './api.ts';
import { Table } from './table.tsx';
import { useLive } from './use-live.tsx';

/** The section. */
export function Pods({ name }: { name: string }) {
  const path = `/api/extensions/${encodeURIComponent(name)}/pods`;
  const live = useLive<{ pods: PodRow[]; problems: string[] }>(path, ['extensions'], `/api/extensions/${encodeURIComponent(name)}/objects/events`);
  const [log, setLog] = useState<{ title: string; text?: string; error?: string } | undefined>();
  const show = (p: PodRow, container: string): void => {
    const title = `${p.namespace}/${p.name}, container ${container}`;
    setLog({ title });
    getJson<{ log: string }>(
      `${path}/${encodeURIComponent(p.namespace)}/${encodeURIComponent(p.name)}/log?container=${encodeURIComponent(container)}`,
    ).then(
      (r) => setLog({ title, text: r.log }),
      (e: unknown) => setLog({ title, error: String((e as Error).message) }),
    );
  };
  const pods = live.data?.pods;
  return (
    <section aria-label="Pods">
      <Title headingLevel="h2">Pods</Title>
      {live.error !== undefined && <Alert component="p" variant="warning" isInline title={live.error.message} />}
      {live.data?.problems.map((p) => (
        <Alert component="p" key={p} variant="warning" isInline title={p} />
      ))}
      {pods !== undefined && pods.length === 0 && <p>No Pods: the installed bundle runs no Deployment, or none has Pods yet.</p>}
      {pods !== undefined && pods.length > 0 && (
        <Table
          label="Pods"
          head={['Pod', 'Deployment', 'Status', 'Ready', 'Restarts', 'Node', 'Logs']}
          rows={pods.map((p) => [
            <span key="n" data-pod={p.name}>
              {p.namespace}/{p.name}
            </span>,
            p.deployment,
            p.reason === '' ? p.phase : `${p.phase} (${p.reason})`,
            p.ready,
            String(p.restarts),
            p.node === '' ? 'not scheduled' : p.node,
            <span key="l">
              {p.containers.map((c) => (
                <Button key={c} variant="link" isInline onClick={() => show(p, c)} aria-label={`Logs of ${p.name} ${c}`}>
                  {c}
                </Button>
              ))}
            </span>,
          ])}
        />
      )}
      {log !== undefined && (
        <div data-pod-log="">
          <Title headingLevel="h3">Log of {log.title}</Title>
          {log.error !== undefined && <Alert component="p" variant="warning" isInline title={log.error} />}
          {log.text !== undefined && <pre className="olmv1-log">{log.text === '' ? '(empty)' : log.text}</pre>}
          <Button variant="link" onClick={() => setLog(undefined)}>
            Close
          </Button>
        </div>
      )}
    </section>
  );
}
