// Reading the events.k8s.io Events the components record about a cluster-scoped object (in
// namespace default, where client-go puts them), for the e2e and config-manifests suites.
import type { KubeClient, KubeObject } from '../../pkg/shared/kube/index.ts';
import { waitUntil } from './bundle-flow.ts';

/** One recorded Event, flattened; `count` is 1 without a series. */
export interface RecordedEvent {
  name: string;
  type: string;
  reason: string;
  action: string;
  note: string;
  count: number;
  reportingController: string;
  reportingInstance: string;
}

/** The Events in namespace default whose `regarding` is the `kind` named `name`. */
export async function eventsAbout(client: KubeClient, kind: string, name: string): Promise<RecordedEvent[]> {
  const { items } = await client.listAll<KubeObject & Record<string, unknown>>(
    { apiVersion: 'events.k8s.io/v1', kind: 'Event' },
    { namespace: 'default' },
  );
  return items
    .filter((e) => {
      const r = e.regarding as { kind?: string; name?: string } | undefined;
      return r?.kind === kind && r.name === name;
    })
    .map((e) => ({
      name: e.metadata.name ?? '',
      type: String(e.type),
      reason: String(e.reason),
      action: String(e.action),
      note: String(e.note ?? ''),
      count: (e.series as { count?: number } | undefined)?.count ?? 1,
      reportingController: String(e.reportingController),
      reportingInstance: String(e.reportingInstance),
    }));
}

/** Waits until an Event about `kind` `name` with `reason` satisfies `ok` (default: exists); returns it. */
export async function waitForEvent(
  client: KubeClient,
  kind: string,
  name: string,
  reason: string,
  ok: (e: RecordedEvent) => boolean = () => true,
  timeoutMs = 60_000,
): Promise<RecordedEvent> {
  let found: RecordedEvent | undefined;
  await waitUntil(
    `an Event ${reason} about ${kind} ${name}`,
    async () => {
      found = (await eventsAbout(client, kind, name)).find((e) => e.reason === reason && ok(e));
      return found !== undefined;
    },
    timeoutMs,
  );
  return found as RecordedEvent;
}
