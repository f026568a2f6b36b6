/** Builders of CustomResourceDefinitions for the CRD upgrade-safety unit tests. */
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
