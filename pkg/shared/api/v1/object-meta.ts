/**
 * Kubernetes meta types shared by both kinds: the parts of `metadata` our controllers read, and
 * `metav1.LabelSelector`. Shape only (the server validated formats); unknown fields are dropped.
 */
import { z } from 'zod';

/** The `metadata` fields our code uses; only `name` is required (files carry no `uid`). */
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

/** One requirement of a label selector; `operator` is checked when the selector is used. */
const LabelSelectorRequirement = z.object({
  key: z.string(),
  operator: z.string(),
  values: z.array(z.string()).optional(),
});

/** `metav1.LabelSelector`: everything must hold; an empty selector matches everything. */
export const LabelSelector = z.object({
  matchLabels: z.record(z.string(), z.string()).optional(),
  matchExpressions: z.array(LabelSelectorRequirement).optional(),
});

/** A label selector; see the `LabelSelector` schema. */
export type LabelSelector = z.infer<typeof LabelSelector>;

/**
 * `date` as Kubernetes serialises `metav1.Time` (`2024-01-02T03:04:05Z`): custom resources
 * store timestamps verbatim, so ours must compare equal with upstream's.
 */
export function formatKubeTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}
