// Registry credentials of catalogd and operator-controller (issue #26), as upstream's
// pull-secret controller builds them: the --global-pull-secret Secret, then the imagePullSecrets
// of the component's own ServiceAccount, a later Secret winning for the same registry, all kept
// current by watches. Against a real kube-apiserver (the component identified as a
// ServiceAccount by a token, exactly as in a pod) and the basic-auth test registry.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PullSecretCredentials } from '../../pkg/shared/pullsecret/index.ts';
import type { DockerConfig } from '../../pkg/shared/image/index.ts';
import { connect, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { type ControlPlaneInfo, ensureServiceAccount, requestServiceAccountToken, serviceAccountKubeconfig } from '../envtest/index.ts';
import { waitUntil } from '../support/bundle-flow.ts';
import { startCatalogd, type TestCatalogd } from '../support/catalogd.ts';
import { condition, pushCatalog, simpleCatalog, waitForCatalog, writeCatalogDir } from '../support/catalogs.ts';
import { installOlmConfig } from '../support/olm-config.ts';

const RUN = randomBytes(3).toString('hex');
const NS = `pull-secrets-${RUN}`;
const log = pino({ level: process.env.OLMV1_TEST_LOG ?? 'silent' });
let cp: ControlPlaneInfo;
let admin: KubeContext;
let work: string;

const auth = (user: string, password: string): string => Buffer.from(`${user}:${password}`).toString('base64');

/** A dockerconfigjson (or legacy dockercfg) Secret of `auths`. */
function pullSecret(name: string, auths: Record<string, string>, legacy = false): KubeObject {
  const entries = Object.fromEntries(Object.entries(auths).map(([host, a]) => [host, { auth: a }]));
  const [key, body] = legacy ? ['.dockercfg', entries] : ['.dockerconfigjson', { auths: entries }];
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: legacy ? 'kubernetes.io/dockercfg' : 'kubernetes.io/dockerconfigjson',
    metadata: { name, namespace: NS },
    data: { [key]: Buffer.from(JSON.stringify(body)).toString('base64') },
  };
}

beforeAll(async () => {
  cp = inject('envtestControlPlane');
  admin = await connect({ kind: 'file', path: cp.kubeconfigPath });
  work = await mkdtemp(join(tmpdir(), 'pull-secrets-'));
  await admin.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
});

afterAll(async () => {
  admin?.close();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe('pull secrets', () => {
  it("merge the global pull secret and the ServiceAccount's imagePullSecrets in order, and follow every change", async () => {
    // The component's identity: a ServiceAccount allowed exactly what config/rbac grants for this.
    await ensureServiceAccount(cp, NS, 'component');
    await admin.client.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'pull-secrets', namespace: NS },
      rules: [{ apiGroups: [''], resources: ['secrets', 'serviceaccounts'], verbs: ['list', 'watch'] }],
    });
    await admin.client.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'pull-secrets', namespace: NS },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pull-secrets' },
      subjects: [{ kind: 'ServiceAccount', name: 'component', namespace: NS }],
    });
    for (const s of [
      pullSecret('global', { 'a.test': auth('global', 'g'), 'z.test': auth('zed', 'z') }),
      pullSecret('first', { 'a.test': auth('first', '1') }),
      pullSecret('second', { 'a.test': auth('second', '2'), 'y.test': auth('why', 'y') }, true),
    ]) {
      await admin.client.create(s);
    }
    const sa = { apiVersion: 'v1', kind: 'ServiceAccount', namespace: NS, name: 'component' };
    await admin.client.patch(sa, { imagePullSecrets: [{ name: 'first' }, { name: 'second' }, { name: 'missing' }] }, 'merge');

    const kubeconfig = join(work, 'component.kubeconfig');
    await writeFile(kubeconfig, serviceAccountKubeconfig(cp, await requestServiceAccountToken(cp, NS, 'component')));
    const asComponent = await connect({ kind: 'file', path: kubeconfig });
    const stop = new AbortController();
    const credentials = new PullSecretCredentials(asComponent.client, { global: { namespace: NS, name: 'global' }, serviceAccount: 'self' }, log);
    const running = credentials.run(stop.signal);
    const users = (): Record<string, string> =>
      Object.fromEntries(Object.entries((credentials.get() as DockerConfig | undefined)?.auths ?? {}).map(([k, v]) => [k, v.username]));
    const until = (what: string, want: Record<string, string>): Promise<void> =>
      waitUntil(what, async () => JSON.stringify(users()) === JSON.stringify(want), 15_000).catch((err: unknown) => {
        throw new Error(`${(err as Error).message}; credentials: ${JSON.stringify(users())}`, { cause: err });
      });
    try {
      // Later Secrets win: the ServiceAccount's last one over its first, both over the global one.
      await until('merged in order', { 'a.test': 'second', 'z.test': 'zed', 'y.test': 'why' });
      await admin.client.patch(sa, { imagePullSecrets: [{ name: 'second' }, { name: 'first' }] }, 'merge');
      await until('the ServiceAccount reordered', { 'a.test': 'first', 'z.test': 'zed', 'y.test': 'why' });
      await admin.client.update({ ...pullSecret('first', { 'a.test': auth('rotated', '1b') }) });
      await until('a Secret rotated', { 'a.test': 'rotated', 'z.test': 'zed', 'y.test': 'why' });
      await admin.client.patch(sa, { imagePullSecrets: null }, 'merge');
      await until('the imagePullSecrets dropped', { 'a.test': 'global', 'z.test': 'zed' });
      await admin.client.delete({ apiVersion: 'v1', kind: 'Secret', namespace: NS, name: 'global' });
      await until('the global pull secret deleted', {});
      expect(credentials.get()).toBeUndefined();
    } finally {
      stop.abort();
      await running;
      asComponent.close();
    }
  });

  describe('catalogd', () => {
    let catalogd: TestCatalogd | undefined;
    afterAll(async () => {
      await catalogd?.destroy();
    });

    it('pulls from a basic-auth registry with --global-pull-secret, and a rotated Secret takes effect without a restart', async () => {
      await installOlmConfig(cp);
      await admin.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'olmv1-system' } }).catch(() => undefined);
      const registry = inject('envtestRegistries').basicAuth;
      const name = `rotated-${RUN}`;
      const ref = `${registry.host}/private/${name}:v1`;
      const creds = { auths: { [registry.host]: { username: registry.username ?? '', password: registry.password ?? '' } } };
      await pushCatalog(await writeCatalogDir(simpleCatalog(name, ['1.0.0'])), ref, creds);

      const secret = {
        ...pullSecret(name, { [registry.host]: auth(registry.username ?? '', 'wrong') }),
        metadata: { name, namespace: 'olmv1-system' },
      };
      await admin.client.create(secret);
      catalogd = await startCatalogd(cp, { pullSecret: { namespace: 'olmv1-system', name }, pollMinuteMs: 1000 });
      await admin.client.create({
        apiVersion: 'olm.operatorframework.io/v1',
        kind: 'ClusterCatalog',
        metadata: { name },
        spec: { source: { type: 'Image', image: { ref } } },
      });
      const refused = await waitForCatalog(admin.client, name, (cc) => condition(cc, 'Progressing')?.reason === 'Retrying');
      expect(condition(refused, 'Progressing')?.message).toMatch(/401 Unauthorized/);

      await admin.client.update({
        ...pullSecret(name, { [registry.host]: auth(registry.username ?? '', registry.password ?? '') }),
        metadata: { name, namespace: 'olmv1-system' },
      });
      await waitForCatalog(admin.client, name, (cc) => condition(cc, 'Serving')?.status === 'True', 90_000);
      await admin.client.patch(
        { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', name },
        { metadata: { finalizers: null } },
        'merge',
      );
      await admin.client.delete({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', name });
    }, 180_000);
  });
});
