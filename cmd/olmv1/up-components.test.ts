import { describe, expect, it } from 'vitest';
import { componentArgs } from './up-components.ts';

const BASE = {
  repoRoot: '/repo',
  kubeconfig: '/k',
  systemNamespace: 'olmv1-system',
  insecureRegistries: ['127.0.0.1:5001'],
  defaultInstaller: 'olmv1-system/olmv1-default-installer',
};
const PLACES = { serverPort: 1, catalogdHealth: 2, controllerHealth: 3, cacheRoot: '/ws' };
const gatesOf = (args: string[]): string[] => args.filter((a) => a.startsWith('--feature-gates'));

describe('olmv1 up component command lines', () => {
  it('gives each component only its own gates, as one --feature-gates', () => {
    const args = componentArgs(
      {
        ...BASE,
        featureGates: { catalogd: ['GraphQLCatalogQueries=true', 'AllBeta=true'], operatorController: ['BundleReleaseSupport=true', 'AllBeta=true'] },
      },
      PLACES,
    );
    expect(args.catalogd[0]).toBe('/repo/cmd/catalogd/main.ts');
    expect(gatesOf(args.catalogd)).toEqual(['--feature-gates=GraphQLCatalogQueries=true', '--feature-gates=AllBeta=true']);
    expect(args.operatorController[0]).toBe('/repo/cmd/operator-controller/main.ts');
    expect(gatesOf(args.operatorController)).toEqual(['--feature-gates=BundleReleaseSupport=true', '--feature-gates=AllBeta=true']);
  });

  it('passes no --feature-gates without settings: each component keeps its defaults (GraphQLCatalogQueries off)', () => {
    const args = componentArgs({ ...BASE, featureGates: { catalogd: [], operatorController: ['DeploymentConfig=false'] } }, PLACES);
    expect(gatesOf(args.catalogd)).toEqual([]);
    expect(gatesOf(args.operatorController)).toEqual(['--feature-gates=DeploymentConfig=false']);
    expect(args.catalogd).toEqual(expect.arrayContaining(['--catalogs-server-addr', '127.0.0.1:1', '--health-probe-bind-address', '127.0.0.1:2']));
    expect(args.operatorController).toEqual(
      expect.arrayContaining(['--default-install-service-account', 'olmv1-system/olmv1-default-installer', '--insecure-registry', '127.0.0.1:5001']),
    );
  });
});
