import { describe, expect, it } from 'vitest';
import { COMPONENT_DEPLOYMENTS } from './up-in-cluster.ts';

describe('olmv1 up --in-cluster Deployment args', () => {
  it("names config/manager's Deployments", () => {
    expect(COMPONENT_DEPLOYMENTS).toEqual({ catalogd: 'catalogd-controller-manager', operatorController: 'operator-controller-controller-manager' });
  });
});
