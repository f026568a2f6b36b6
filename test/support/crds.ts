/**
 * CustomResourceDefinition manifests for tests: one served and stored version `v1` with the
 * given schema, names derived from the kind and plural as the API server expects them.
 */
import type { KubeObject, ObjectMeta } from '../../pkg/shared/kube/index.ts';

/** What a test's CRD differs in. */
export interface CrdOptions<S> {
  group: string;
  /** Singular `kind.toLowerCase()`, list kind `<Kind>List`. */
  kind: string;
  plural: string;
  /** Default Namespaced. */
  scope?: 'Namespaced' | 'Cluster';
  /** The version's `openAPIV3Schema`. */
  schema: S;
  /** The version's subresources, e.g. `{ status: {} }`. */
  subresources?: Record<string, unknown>;
  /** Metadata besides the name `<plural>.<group>` (labels, ...). */
  metadata?: Omit<ObjectMeta, 'name'>;
  /** More spec fields (for example v1beta1-era fields a test wants refused). */
  extraSpec?: Record<string, unknown>;
}

/** A CRD manifest as {@link customResourceDefinition} builds it. */
export interface CrdManifest<S> extends KubeObject {
  spec: {
    group: string;
    scope: string;
    names: { kind: string; plural: string; singular: string; listKind: string };
    versions: { name: string; served: boolean; storage: boolean; schema: { openAPIV3Schema: S }; subresources?: Record<string, unknown> }[];
  };
}

/** The CRD `<plural>.<group>` with one version `v1`, served and stored. */
export function customResourceDefinition<S = Record<string, unknown>>(o: CrdOptions<S>): CrdManifest<S> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { ...o.metadata, name: `${o.plural}.${o.group}` },
    spec: {
      group: o.group,
      scope: o.scope ?? 'Namespaced',
      names: { kind: o.kind, plural: o.plural, singular: o.kind.toLowerCase(), listKind: `${o.kind}List` },
      ...o.extraSpec,
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          ...(o.subresources === undefined ? {} : { subresources: o.subresources }),
          schema: { openAPIV3Schema: o.schema },
        },
      ],
    },
  };
}

/**
 * Stand-ins for cert-manager's Issuer and Certificate CRDs, for API servers that run no
 * cert-manager: the kinds exist and reject unknown top-level fields, spec and status accept
 * anything.
 */
export function certManagerCrds(): KubeObject[] {
  const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const schema = { openAPIV3Schema: { type: 'object', properties: { spec: open, status: open } } };
  return [
    ['Issuer', 'issuers'],
    ['Certificate', 'certificates'],
  ].map(([kind = '', plural = '']) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.cert-manager.io` },
    spec: {
      group: 'cert-manager.io',
      scope: 'Namespaced',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema, subresources: { status: {} } }],
    },
  }));
}
