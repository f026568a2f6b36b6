/**
 * The ClusterObjectSet kind (upstream's BoxcutterRuntime, experimental): one revision of a
 * ClusterExtension's objects, grouped into ordered phases. operator-controller writes it in that
 * mode and reconciles it; the API server validates it against
 * config/crd/experimental, so the schemas check shape only.
 */
import { z } from 'zod';
import { Condition } from './conditions.ts';
import { CLUSTER_OBJECT_SET } from './constants.ts';
import { LabelSelector, ObjectMeta } from './object-meta.ts';
import { parseObject } from './parse.ts';
import type { Result } from '../../errors/index.ts';

/** `status.conditions[].type` of a ClusterObjectSet. */
export const ObjectSetConditionType = {
  Available: 'Available',
  Progressing: 'Progressing',
  Succeeded: 'Succeeded',
} as const;

/** `status.conditions[].reason` of a ClusterObjectSet, as upstream names them. */
export const ObjectSetReason = {
  Archived: 'Archived',
  Blocked: 'Blocked',
  ProbeFailure: 'ProbeFailure',
  ProbesSucceeded: 'ProbesSucceeded',
  Reconciling: 'Reconciling',
  Retrying: 'Retrying',
} as const;

/** `spec.lifecycleState`: Active -> Archived only. */
export const LifecycleState = { Active: 'Active', Archived: 'Archived' } as const;
export type LifecycleState = (typeof LifecycleState)[keyof typeof LifecycleState];

/** `collisionProtection`, resolved object > phase > spec. */
export const CollisionProtection = { Prevent: 'Prevent', IfNoController: 'IfNoController', None: 'None' } as const;
export type CollisionProtection = (typeof CollisionProtection)[keyof typeof CollisionProtection];

const Collision = z.enum([CollisionProtection.Prevent, CollisionProtection.IfNoController, CollisionProtection.None]);

/** Which objects of a phase a progression probe asserts on. */
const ObjectSelector = z.object({
  type: z.enum(['GroupKind', 'Label']),
  groupKind: z.object({ group: z.string(), kind: z.string() }).optional(),
  label: LabelSelector.optional(),
});
type ObjectSelector = z.infer<typeof ObjectSelector>;

/** One check of a progression probe. */
const Assertion = z.object({
  type: z.enum(['ConditionEqual', 'FieldsEqual', 'FieldValue']),
  conditionEqual: z.object({ type: z.string(), status: z.string() }).optional(),
  fieldsEqual: z.object({ fieldA: z.string(), fieldB: z.string() }).optional(),
  fieldValue: z.object({ fieldPath: z.string(), value: z.string() }).optional(),
});
export type Assertion = z.infer<typeof Assertion>;

const ProgressionProbe = z.object({ selector: ObjectSelector, assertions: z.array(Assertion) });
export type ProgressionProbe = z.infer<typeof ProgressionProbe>;

/** An object stored in a Secret's data under `key` (the Secret must be immutable). */
const ObjectSourceRef = z.object({ name: z.string(), namespace: z.string().optional(), key: z.string() });
export type ObjectSourceRef = z.infer<typeof ObjectSourceRef>;

/** One object of a phase: inline, or a reference to a Secret holding it (exactly one of them). */
const ObjectSetObject = z.object({
  object: z.record(z.string(), z.unknown()).optional(),
  ref: ObjectSourceRef.optional(),
  collisionProtection: Collision.optional(),
});
export type ObjectSetObject = z.infer<typeof ObjectSetObject>;

const ObjectSetPhase = z.object({
  name: z.string(),
  objects: z.array(ObjectSetObject),
  collisionProtection: Collision.optional(),
});
export type ObjectSetPhase = z.infer<typeof ObjectSetPhase>;

const ClusterObjectSetSpec = z.object({
  lifecycleState: z.enum([LifecycleState.Active, LifecycleState.Archived]),
  revision: z.number().int().positive(),
  phases: z.array(ObjectSetPhase).default([]),
  progressDeadlineMinutes: z.number().int().optional(),
  progressionProbes: z.array(ProgressionProbe).optional(),
  collisionProtection: Collision,
});
export type ClusterObjectSetSpec = z.infer<typeof ClusterObjectSetSpec>;

/** `status.observedPhases`: the digest of each phase's objects as first seen (Secret-stored objects may not change). */
const ObservedPhase = z.object({ name: z.string(), digest: z.string() });
export type ObservedPhase = z.infer<typeof ObservedPhase>;

const ClusterObjectSetStatus = z.object({
  conditions: z.array(Condition).optional(),
  observedPhases: z.array(ObservedPhase).optional(),
});

export const ClusterObjectSet = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: ObjectMeta,
  spec: ClusterObjectSetSpec,
  status: ClusterObjectSetStatus.optional(),
});
export type ClusterObjectSet = z.infer<typeof ClusterObjectSet>;

/** Parses a ClusterObjectSet read from the API server; the error is one line. */
export function parseClusterObjectSet(input: unknown): Result<ClusterObjectSet, string> {
  return parseObject(ClusterObjectSet, CLUSTER_OBJECT_SET.kind, input);
}
