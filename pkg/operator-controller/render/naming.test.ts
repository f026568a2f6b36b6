import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { StrategyPermission } from '../bundle/index.ts';
import { deepHashJson, encodePermission, objectNameForBaseAndSuffix, permissionObjectName } from './naming.ts';
import { certNamesFor } from './cert-providers.ts';
import { NAMESPACES_RULE } from './gen-rbac.ts';

// The RBAC data of the public argocd-operator.v0.6.0 bundle, whose generated names upstream
// records in its regression tests.
const argocd = JSON.parse(readFileSync(new URL('./testdata/argocd-v0.6.0-permissions.json', import.meta.url), 'utf8')) as {
  csvName: string;
  clusterPermissions: StrategyPermission[];
  permissions: StrategyPermission[];
};
const SA = 'argocd-operator-controller-manager';

describe('permissionObjectName (upstream test vectors)', () => {
  it('names the clusterPermissions ClusterRole', () => {
    expect(permissionObjectName(argocd.csvName, SA, argocd.clusterPermissions[0] as StrategyPermission)).toBe(
      'argocd-operator.v0-1dhiybrldl1gyksid1dk2dqjsc72psdybc7iyvse5gpx',
    );
  });

  it('names the permissions Role', () => {
    expect(permissionObjectName(argocd.csvName, SA, argocd.permissions[0] as StrategyPermission)).toBe(
      'argocd-operator.v0-22gmilmgp91wu25is5i2ec598hni8owq3l71bbkl7iz3',
    );
  });

  it('names the promoted ClusterRole after appending the namespaces rule', () => {
    const p = argocd.permissions[0] as StrategyPermission;
    expect(permissionObjectName(argocd.csvName, SA, { ...p, rules: [...(p.rules ?? []), NAMESPACES_RULE] })).toBe(
      'argocd-operator.v0.-3gkm3u8zfarktdile5wekso69zs9bgzb988mhjm0y6p',
    );
  });
});

describe('encodePermission (Go json.Encoder field order and omitempty)', () => {
  it('always writes verbs (null when unset), omits empty lists, keeps rules null when unset', () => {
    expect(encodePermission({ serviceAccountName: 'sa', rules: [{ apiGroups: [], resources: ['pods'] }] })).toBe(
      '{"serviceAccountName":"sa","rules":[{"verbs":null,"resources":["pods"]}]}',
    );
    expect(encodePermission({})).toBe('{"serviceAccountName":"","rules":null}');
    expect(encodePermission({ serviceAccountName: 'a', rules: [] })).toBe('{"serviceAccountName":"a","rules":[]}');
  });

  it('orders rule fields verbs, apiGroups, resources, resourceNames, nonResourceURLs and escapes <>&', () => {
    const rule = { nonResourceURLs: ['/x&y'], resourceNames: ['<n>'], resources: ['r'], apiGroups: [''], verbs: ['get'] };
    expect(encodePermission({ serviceAccountName: 's', rules: [rule] })).toBe(
      '{"serviceAccountName":"s","rules":[{"verbs":["get"],"apiGroups":[""],"resources":["r"],"resourceNames":["\\u003cn\\u003e"],"nonResourceURLs":["/x\\u0026y"]}]}',
    );
  });

  it('hashes with SHA-224 over the encoder output plus a newline, in base 36', () => {
    // Independently computed: base36(int(sha224(b'{}\\n'))).
    expect(deepHashJson('{}')).toBe('16jfjhihxbzhfhs1k5mimq740kvioi98pfbea9q6qtf9');
  });
});

describe('objectNameForBaseAndSuffix', () => {
  it('joins base and suffix when short enough', () => {
    expect(objectNameForBaseAndSuffix('my-deployment-thing', 'service')).toBe('my-deployment-thing-service');
  });

  it('truncates the base so the result is 63 characters', () => {
    const base = 'a'.repeat(70);
    const name = objectNameForBaseAndSuffix(base, 'service');
    expect(name).toBe(`${'a'.repeat(55)}-service`);
    expect(name).toHaveLength(63);
  });

  it('derives webhook service and certificate names like upstream', () => {
    expect(certNamesFor('my.deployment.thing', 'ns')).toEqual({
      serviceName: 'my-deployment-thing-service',
      certName: 'my-deployment-thing-service-cert',
      namespace: 'ns',
    });
    const long = certNamesFor('my.object.thing.has.a.really.really.really.really.really.long.name', 'ns');
    expect(long.serviceName).toBe('my-object-thing-has-a-really-really-really-really-reall-service');
    expect(long.certName).toBe('my-object-thing-has-a-really-really-really-really-reall-se-cert');
  });
});
