// The README's "Deploying on a cluster" walk-through, run as written: its ```sh blocks, in
// order, in one bash with `set -euo pipefail`, against a control plane with a real node and a
// registry on the node's bridge address (plain HTTP, as containerd and Pods reach it). The only
// inputs are environment variables: REGISTRY, PLAIN_HTTP, KUBECONFIG, CATALOG_IMAGE (the
// example catalog pushed here), and PATH with the control plane's kubectl and this Node. The
// blocks run from the root of a checkout: here a scratch directory whose `scripts` and `config`
// link to this one, so the files they write stay out of the work tree. Then: both Deployments
// Available with the image the walk-through printed, the ClusterCatalog Serving, and its
// content answering through catalogd's Service over TLS verified with the walk-through's CA.
// Needs what test/e2e/on-node.test.ts needs (root, buildah, debootstrap, the node's packages).
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pushExample } from '../../cmd/olmv1/up-example.ts';
import { DEPLOYMENTS, startNodeRegistry, SYSTEM_NAMESPACE, type Kubectl } from '../../pkg/olmv1/in-cluster/index.ts';
import { runCommand, startControlPlane, type ControlPlane, type Registry } from '../../pkg/olmv1/localstack/index.ts';
import { envtestNodeBinaries } from '../envtest/deferred-tools.ts';
import { condition, httpsGet, kube, nodeEnv, nodeUnavailable, REPO, timed } from '../support/on-node.ts';
import { shellBlocks } from '../support/readme-blocks.ts';

const exec = promisify(execFile);
const missing = nodeUnavailable();
if (missing !== undefined) console.warn(`readme-deploy.test.ts skipped: ${missing}`);
// At collection time, where no timeout applies (test/envtest/deferred-tools.ts).
const nodeBinaries = await envtestNodeBinaries();
const log = (line: string): void => console.error(`readme-deploy: ${line}`);
const SECTION = '## Deploying on a cluster';

let cp: ControlPlane | undefined;
let registry: Registry | undefined;
let work = '';
let catalogRef = '';

beforeAll(async () => {
  if (missing !== undefined) return;
  work = await mkdtemp(join(tmpdir(), 'olmv1-readme-deploy-'));
  cp = await startControlPlane({ binaries: { ...inject('envtestBinaries'), node: nodeBinaries }, node: { log } });
  registry = await startNodeRegistry(cp, inject('envtestBinaries'), work);
  await mkdir(join(work, 'example'));
  catalogRef = (await pushExample(REPO, registry.host, [registry.host], join(work, 'example'), nodeEnv)).catalogRef;
}, 900_000);

afterAll(async () => {
  await registry?.stop();
  await cp?.stop();
  if (work !== '') await rm(work, { recursive: true, force: true });
});

describe.skipIf(missing !== undefined)("the README's deployment walk-through", () => {
  it('has its commands as ```sh blocks', async () => {
    const blocks = shellBlocks(await readFile(join(REPO, 'README.md'), 'utf8'), SECTION);
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    expect(blocks.join('\n')).toContain('kubectl apply --server-side -k');
  });

  it('deploys config/ with the project image: both Deployments Available, a ClusterCatalog Serving and its content answering', async () => {
    if (cp === undefined || registry === undefined) throw new Error('no control plane');
    const { info } = cp;
    const started = Date.now();
    const blocks = shellBlocks(await readFile(join(REPO, 'README.md'), 'utf8'), SECTION);
    // The root of a checkout, as the walk-through expects, outside the work tree.
    const root = join(work, 'checkout');
    await mkdir(join(root, 'bin'), { recursive: true });
    for (const dir of ['scripts', 'config']) await symlink(join(REPO, dir), join(root, dir));
    await symlink(cp.info.kubectl, join(root, 'bin', 'kubectl'));
    const script = `set -euo pipefail\n${blocks.join('\n')}`;
    const env = {
      ...nodeEnv,
      PATH: `${join(root, 'bin')}:${dirname(process.execPath)}:${nodeEnv['PATH'] ?? ''}`,
      REGISTRY: registry.host,
      PLAIN_HTTP: '1',
      KUBECONFIG: cp.info.kubeconfigPath,
      CATALOG_IMAGE: catalogRef,
    };
    const run = await exec('bash', ['-c', script], { cwd: root, env, maxBuffer: 64 << 20, timeout: 1_500_000 }).catch(
      (e: Error & { stdout?: string; stderr?: string }) => {
        throw new Error(
          `the walk-through failed: ${e.message.split('\n')[0]}\n--- stdout\n${e.stdout ?? ''}\n--- stderr (end)\n${(e.stderr ?? '').slice(-6000)}`,
        );
      },
    );
    timed(log, 'walk-through ran', started);
    const image = run.stdout.split('\n').find((l) => /^\S+\/olmv1\/olmv1@sha256:[0-9a-f]{64}$/.test(l));
    expect(image, run.stdout).toBeDefined();

    const kubectl: Kubectl = async (args, input) =>
      (await runCommand(info.kubectl, ['--kubeconfig', info.kubeconfigPath, ...args], input === undefined ? {} : { input })).stdout;
    const k = kube(kubectl);
    for (const name of DEPLOYMENTS) {
      const d = await k.get(['deployment', '-n', SYSTEM_NAMESPACE, name]);
      expect(condition(d, 'Available'), name).toBe('True');
      const containers = (d.spec?.['template'] as { spec: { containers: Array<{ image: string; args: string[] }> } }).spec.containers;
      expect(containers[0]?.image).toBe(image);
      expect(containers[0]?.args).toContain(`--insecure-registry=${registry.host}`);
    }
    const catalog = await k.get(['clustercatalog', 'my-catalog']);
    expect(condition(catalog, 'Serving')).toBe('True');
    // The content through catalogd's Service, its certificate checked against the walk-through's
    // CA (as the Secret holds it) for the Service's DNS name.
    const secret = await k.get(['secret', '-n', SYSTEM_NAMESPACE, 'catalogd-service-cert']);
    const ca = Buffer.from((secret as unknown as { data: Record<string, string> }).data['ca.crt'] ?? '', 'base64').toString();
    const url = `https://${await k.clusterIp('catalogd-service')}/catalogs/my-catalog/api/v1/all`;
    const answer = await httpsGet(url, { ca, servername: `catalogd-service.${SYSTEM_NAMESPACE}.svc` });
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('example-operator');
    timed(log, 'walk-through and checks', started);
  }, 1_800_000);
});
