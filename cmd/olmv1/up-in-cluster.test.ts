import { describe, expect, it } from 'vitest';
import { COMPONENT_DEPLOYMENTS, featureGatesPatch } from './up-in-cluster.ts';

describe('olmv1 up --in-cluster Deployment args', () => {
  it("appends the component's --feature-gates to its container's args, or patches nothing", () => {
    expect(JSON.parse(featureGatesPatch(['GraphQLCatalogQueries=true', 'AllBeta=false']) ?? '')).toEqual([
      { op: 'add', path: '/spec/template/spec/containers/0/args/-', value: '--feature-gates=GraphQLCatalogQueries=true,AllBeta=false' },
    ]);
    expect(featureGatesPatch([])).toBeUndefined();
  });

  it("names config/manager's Deployments", () => {
    expect(COMPONENT_DEPLOYMENTS).toEqual({ catalogd: 'catalogd-controller-manager', operatorController: 'operator-controller-controller-manager' });
  });
});
