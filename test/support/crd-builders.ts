/** Builders of CustomResourceDefinitions (and Widgets) for unit tests. */
import type { KubeObject } from '../../pkg/shared/unstructured/index.ts';

/** JSON properties of a schema. */
export type Props = Record<string, unknown>;

/** One version of `testCrd`. */
interface TestVersion {
  name: string;
  /** Default true. */
  served?: boolean;
  /** Default: the first version is the storage version. */
  storage?: boolean;
  /** The properties of `spec`. */
  spec: Props;
  /** More keys of the `spec` schema, e.g. `required`. */
  specSchema?: Props;
}

/** Options of `testCrd`. */
interface TestCrdOptions {
  /** Default Namespaced. */
  scope?: string;
  /** Default: the first version. */
  storedVersions?: string[];
  /** Convert with a webhook. */
  webhook?: boolean;
}

/** A CRD `crontabs.stable.example.com` whose versions each have an object `spec` with the given properties. */
export function testCrd(versions: TestVersion[], opts: TestCrdOptions = {}): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'crontabs.stable.example.com' },
    spec: {
      group: 'stable.example.com',
      scope: opts.scope ?? 'Namespaced',
      names: { plural: 'crontabs', kind: 'CronTab' },
      ...(opts.webhook === true
        ? { conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://x' } } } }
        : {}),
      versions: versions.map((v, i) => ({
        name: v.name,
        served: v.served ?? true,
        storage: v.storage ?? i === 0,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', ...v.specSchema, properties: v.spec } } } },
      })),
    },
    status: { storedVersions: opts.storedVersions ?? [versions[0]?.name ?? 'v1'] },
  };
}

/** A namespaced CRD `widgets.example.com` (kind Widget) with `versions`: by default v1, served and stored, with no schema. */
export function widgetCrd(versions: readonly Props[] = [{ name: 'v1', served: true, storage: true }], status?: Props): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: { group: 'example.com', scope: 'Namespaced', names: { kind: 'Widget', plural: 'widgets' }, versions },
    ...(status === undefined ? {} : { status }),
  };
}

/** `widgetCrd` whose one version, v1, stored, has an object `spec` with `properties` (and the schema keys `extra`). */
export function widgetSchemaCrd(properties: Props, extra: Props = {}): KubeObject {
  const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties, ...extra } } } };
  return widgetCrd([{ name: 'v1', served: true, storage: true, schema }], { storedVersions: ['v1'] });
}

/** A Widget `name` in namespace `ns` with `spec.replicas`. */
export function widget(name: string, replicas: number): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'ns' }, spec: { replicas } };
}
