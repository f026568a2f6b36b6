/**
 * Whether the OpenShift APIs the gate uses exist, from watches of their three CRDs (one
 * informer each, by name, so only those need list/watch): the gate notices the APIs coming and
 * going without polling discovery, which stays the authority on how a kind is addressed.
 */
import type { Informer, KubeObject } from '../../shared/kube/index.ts';
import { CLUSTER_VERSION, OLM_CLUSTER_OPERATOR, OLM_OPERATOR } from './openshift.ts';

/** `apiextensions.k8s.io/v1` CustomResourceDefinition. */
export const CRD_TYPE = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;

/** The kinds the gate reads or writes, by the name of the CRD that defines each. */
export const OPENSHIFT_CRDS: ReadonlyArray<{ crd: string; kind: { apiVersion: string; kind: string } }> = [
  { crd: 'clusterversions.config.openshift.io', kind: CLUSTER_VERSION },
  { crd: 'clusteroperators.config.openshift.io', kind: OLM_CLUSTER_OPERATOR },
  { crd: 'olms.operator.openshift.io', kind: OLM_OPERATOR },
];

/**
 * What the CRD watch says about a kind: `absent` (no CRD, or it does not serve the version),
 * `established` (its CRD is Established and serves the version: discovery lists it, or will in a
 * moment), `unknown` (not watched, or the watch has not listed yet: only discovery can tell).
 */
export type ApiPresence = 'absent' | 'established' | 'unknown';

/** Answers ApiPresence for the gate's kinds. */
export interface ApiWatch {
  presence(kind: { apiVersion: string; kind: string }): ApiPresence;
}

/** The CRD informers' caches, by CRD name. */
type CrdCaches = ReadonlyMap<string, Pick<Informer<KubeObject>, 'hasSynced' | 'get'>>;

/** An ApiWatch over the informers of OPENSHIFT_CRDS (keyed by CRD name). */
export function crdApiWatch(caches: CrdCaches): ApiWatch {
  return {
    presence(kind) {
      const entry = OPENSHIFT_CRDS.find((e) => e.kind.apiVersion === kind.apiVersion && e.kind.kind === kind.kind);
      const cache = entry === undefined ? undefined : caches.get(entry.crd);
      if (entry === undefined || cache === undefined || !cache.hasSynced) return 'unknown';
      return servesVersion(cache.get(entry.crd), kind.apiVersion.split('/')[1] ?? '') ? 'established' : 'absent';
    },
  };
}

interface CrdSummary {
  spec?: { versions?: Array<{ name?: string; served?: boolean }> };
  status?: { conditions?: Array<{ type?: string; status?: string }> };
}

/** True when `crd` is Established and serves `version`. */
export function servesVersion(crd: Readonly<KubeObject> | undefined, version: string): boolean {
  if (crd === undefined) return false;
  const { spec, status } = crd as Readonly<KubeObject> & CrdSummary;
  const established = (status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
  return established && (spec?.versions ?? []).some((v) => v.name === version && v.served === true);
}

/** Informer transform of the CRD informers: only what servesVersion reads (a CRD's schemas are most of its size). */
export function summarizeCrd(obj: KubeObject): KubeObject {
  const { spec, status } = obj as KubeObject & CrdSummary;
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: obj.metadata,
    spec: { versions: (spec?.versions ?? []).map((v) => ({ name: v.name, served: v.served })) },
    status: { conditions: (status?.conditions ?? []).map((c) => ({ type: c.type, status: c.status })) },
  };
}

/**
 * True for CRD informer events that may change what the gate can use: every add, delete and
 * update, but not the informer's periodic re-delivery of an unchanged object.
 */
export function crdEventMatters(obj: Readonly<KubeObject>, old: Readonly<KubeObject> | undefined): boolean {
  return old === undefined || obj !== old;
}
