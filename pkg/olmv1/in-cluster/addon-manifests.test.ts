import { describe, expect, it } from 'vitest';
import { SERVICE_CA_DEPLOYMENT, SERVICE_CA_NAMESPACE, SERVICE_CA_SECRET, serviceCaManifests } from './addon-manifests.ts';

type Obj = Record<string, unknown> & { kind: string; metadata: { name: string; namespace?: string } };
const items = serviceCaManifests('registry.test/olmv1/service-ca-stand-in@sha256:abc').items as Obj[];

describe('the service-CA stand-in manifests', () => {
  it('are its namespace, ServiceAccount, ClusterRole and binding, and one Deployment', () => {
    expect(items.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`)).toEqual([
      `Namespace//${SERVICE_CA_NAMESPACE}`,
      `ServiceAccount/${SERVICE_CA_NAMESPACE}/${SERVICE_CA_DEPLOYMENT}`,
      `ClusterRole//${SERVICE_CA_DEPLOYMENT}`,
      `ClusterRoleBinding//${SERVICE_CA_DEPLOYMENT}`,
      `Deployment/${SERVICE_CA_NAMESPACE}/${SERVICE_CA_DEPLOYMENT}`,
    ]);
  });

  it('grant no delete, and create on Secrets only (serving certificates and its CA)', () => {
    const rules = items.find((o) => o.kind === 'ClusterRole')?.['rules'] as Array<{ resources: string[]; verbs: string[] }>;
    const verbs = new Set(rules.flatMap((r) => r.verbs));
    expect(verbs.has('delete')).toBe(false);
    expect(rules.filter((r) => r.verbs.includes('create')).flatMap((r) => r.resources)).toEqual(['secrets']);
    expect(rules.flatMap((r) => r.resources).sort()).toEqual(
      [
        'apiservices',
        'configmaps',
        'customresourcedefinitions',
        'mutatingwebhookconfigurations',
        'secrets',
        'services',
        'validatingwebhookconfigurations',
      ].sort(),
    );
  });

  it('run the image as non-root, read-only, naming its CA Secret, ready on /readyz', () => {
    const deployment = items.find((o) => o.kind === 'Deployment') as Obj & {
      spec: { template: { spec: { securityContext: object; containers: Array<Record<string, unknown>> } } };
    };
    const pod = deployment.spec.template.spec;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true });
    const [container] = pod.containers;
    expect(container).toMatchObject({
      image: 'registry.test/olmv1/service-ca-stand-in@sha256:abc',
      args: [`--namespace=${SERVICE_CA_NAMESPACE}`, `--ca-secret=${SERVICE_CA_SECRET}`],
      readinessProbe: { httpGet: { path: '/readyz', port: 'health' } },
      securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false },
    });
  });
});
