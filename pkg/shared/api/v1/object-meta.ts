/**
 * Kubernetes meta types shared by both kinds: the parts of `metadata` our controllers read,
 * and `metav1.LabelSelector`.
 *
 * Schemas here parse objects that the API server has already validated, so they check shape
 * only (types and presence), not formats the server enforces. Unknown fields are dropped.
 */
import { z } from 'zod';

/**
 * The `metadata` fields our code uses. Only `name` is required: objects read from the API
 * server always carry `uid`, `resourceVersion` and `generation` as well, but manifests read
 * from files (samples, CLI input) do not.
 *
 * `deletionTimestamp` is set once deletion has been requested (finalizers then run);
 * timestamps are RFC 3339 strings. `generation` starts at 1 and increases on every spec change.
 */
export const ObjectMeta = z.object({
  name: z.string().min(1),
  uid: z.string().optional(),
  generation: z.number().int().nonnegative().optional(),
  resourceVersion: z.string().optional(),
  creationTimestamp: z.string().optional(),
  deletionTimestamp: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  finalizers: z.array(z.string()).optional(),
});

/** The `metadata` of a cluster-scoped object; see the `ObjectMeta` schema. */
export type ObjectMeta = z.infer<typeof ObjectMeta>;

/**
 * One set-based requirement of a label selector. `operator` is a plain string because the CRD
 * does not restrict it (as upstream): a bad operator is accepted at admission and must be
 * reported when the selector is converted for use.
 */
const LabelSelectorRequirement = z.object({
  key: z.string(),
  operator: z.string(),
  values: z.array(z.string()).optional(),
});

/**
 * Kubernetes `metav1.LabelSelector`: every `matchLabels` entry and every `matchExpressions`
 * requirement must hold. An empty selector matches everything.
 */
export const LabelSelector = z.object({
  matchLabels: z.record(z.string(), z.string()).optional(),
  matchExpressions: z.array(LabelSelectorRequirement).optional(),
});

/** A label selector; see the `LabelSelector` schema. */
export type LabelSelector = z.infer<typeof LabelSelector>;

/**
 * `date` formatted as Kubernetes serialises `metav1.Time`: RFC 3339 in UTC with whole seconds
 * (`2024-01-02T03:04:05Z`). Custom resources store timestamps verbatim, so writers must use
 * this form for them to compare equal with what upstream writes.
 */
export function formatKubeTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}
