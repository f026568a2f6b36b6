// The example operator (examples/example-operator/operator), built with Go as `olmv1 up`
// builds it: the binary runs on this machine and answers its probes with the version it was
// built with; against the test API server it lists the Greetings with a ServiceAccount token
// only once the bundle's ClusterRole is bound (not ready before); its images, written by our
// image writer and pushed with our image client to the test registry, pull back with our
// puller holding that same binary, run as a numeric non-root user, and the bundles'
// Deployments name that image with the probes it answers.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAll } from 'js-yaml';
import { describe, expect, inject, it, onTestFinished, vi } from 'vitest';
import { buildExampleOperatorBinary, pushExampleOperatorImages } from '../../pkg/olmv1/images/index.ts';
import { findGoToolchain } from '../../pkg/olmv1/localstack/index.ts';
import { createImageClient } from '../../pkg/shared/image/index.ts';
import { ensureServiceAccount, kubeRequest, requestServiceAccountToken } from '../envtest/index.ts';
import { testTempDir } from '../support/temp-dir.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/example-operator/', import.meta.url));
const SOURCE = `${EXAMPLE}operator`;

/**
 * Runs `argv` (the operator, with `--listen 127.0.0.1:0` appended) until `fn` is done; returns
 * its log lines and exit code. `fn` gets the operator's address and its output so far.
 */
async function running<T>(
  argv: string[],
  fn: (base: string, output: () => string) => Promise<T>,
  env: NodeJS.ProcessEnv = {},
): Promise<{ result: T; log: string[]; code: number | null }> {
  const [command = '', ...args] = argv;
  const child = spawn(command, [...args, '--listen', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'inherit'], env });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const address = await vi.waitFor(
      () => {
        const serving = /"msg":"serving","address":"([^"]+)"/.exec(out)?.[1];
        if (serving === undefined) throw new Error(`the operator did not start serving (exit code ${child.exitCode}):\n${out}`);
        return serving;
      },
      { timeout: 10_000, interval: 20 },
    );
    const result = await fn(`http://${address}`, () => out);
    child.kill('SIGTERM');
    const code = await exited;
    return { result, log: out.trim().split('\n'), code };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

describe('the example operator', () => {
  it('is a static binary that logs its version, answers /healthz and /readyz, and stops on SIGTERM', async () => {
    const dir = await testTempDir('example-operator-');
    const binary = await buildExampleOperatorBinary(await findGoToolchain(process.env), SOURCE, '1.0.0', dir);
    const elf = await readFile(binary);
    // A static executable has no PT_INTERP program header (no dynamic loader named).
    expect(elf.includes(Buffer.from('/lib64/ld-linux'))).toBe(false);
    const { result, log, code } = await running([binary], async (base) => {
      const get = async (path: string): Promise<[number, string]> => {
        const res = await fetch(`${base}${path}`);
        return [res.status, (await res.text()).trim()];
      };
      return {
        healthz: await get('/healthz'),
        readyz: await get('/readyz'),
        version: await get('/version'),
        post: (await fetch(`${base}/healthz`, { method: 'POST' })).status,
      };
    });
    expect(result).toEqual({ healthz: [200, 'ok'], readyz: [200, 'ok'], version: [200, '1.0.0'], post: 405 });
    expect(JSON.parse(log[0] ?? '{}')).toMatchObject({ msg: 'example-operator starting', version: '1.0.0' });
    // Outside a cluster there is nothing to list: ready at once, and it says so.
    expect(log.some((l) => l.includes('not in a cluster'))).toBe(true);
    expect(code).toBe(0);
  });

  it('is pushed per version to the registry and pulls back with our puller, binary and user intact', async () => {
    const host = inject('envtestRegistries').anonymous.host;
    const registry = `${host}/example-operator-image`;
    const dir = await testTempDir('example-operator-push-');
    const pushed = await pushExampleOperatorImages({
      sourceDir: SOURCE,
      versions: ['1.0.0', '1.1.0'],
      registry,
      insecureRegistries: [host],
      workDir: dir,
      env: process.env,
    });
    expect(pushed.map((p) => p.tagRef)).toEqual([`${registry}/olmv1/example-operator:v1.0.0`, `${registry}/olmv1/example-operator:v1.1.0`]);
    const [v1, v11] = pushed;
    expect(v1?.digestRef).toMatch(new RegExp(`^${registry.replaceAll('.', '\\.')}/olmv1/example-operator@sha256:[0-9a-f]{64}$`));
    // Same program, another version string: another binary, another image.
    expect(v11?.digestRef).not.toBe(v1?.digestRef);
    expect(v1!.compressedBytes).toBeLessThan(v1!.uncompressedBytes);

    const client = createImageClient({ insecureRegistries: [host] });
    try {
      // The tag resolves to the digest returned, and the image reads back whole.
      expect((await client.resolveDigest(v1!.tagRef)).digestRef).toBe(v1!.digestRef);
      const image = await client.readImageFiles(v1!.digestRef);
      expect([...image.files.keys()].sort()).toEqual(['etc/group', 'etc/passwd', 'example-operator']);
      const built = await readFile(`${dir}/example-operator-1.0.0`);
      expect(image.files.get('example-operator')?.equals(built)).toBe(true);
      const config = (image.config.raw as { config: { User: string; Entrypoint: string[] } }).config;
      expect(config.User).toBe('65532:65532');
      expect(config.Entrypoint).toEqual(['/example-operator']);
      expect(image.files.get('etc/passwd')?.toString()).toMatch(/^example-operator:x:65532:65532:/m);
      expect(image.config.labels['org.opencontainers.image.version']).toBe('1.0.0');
      if (process.getuid?.() === 0) {
        // The image's files alone, as a root filesystem: the binary starts there as the image's
        // user (chroot --userspec) with nothing else around it, and answers its probes.
        const root = await testTempDir('example-operator-root-');
        await chmod(root, 0o755);
        for (const [path, data] of image.files) {
          await mkdir(dirname(join(root, path)), { recursive: true });
          await writeFile(join(root, path), data, { mode: path === 'example-operator' ? 0o755 : 0o644 });
        }
        const chroot = ['/usr/sbin/chroot', '/usr/bin/chroot'].find((p) => existsSync(p)) ?? 'chroot';
        const { result, log } = await running(
          [chroot, `--userspec=${config.User}`, root, ...config.Entrypoint],
          async (base) => (await fetch(`${base}/healthz`)).status,
        );
        expect(result).toBe(200);
        expect(JSON.parse(log[0] ?? '{}')).toMatchObject({ msg: 'example-operator starting', version: '1.0.0' });
      }
    } finally {
      client.close();
    }
    // Pushing the same version again gives the same digest: the build and the writer are deterministic.
    const again = await pushExampleOperatorImages({
      sourceDir: SOURCE,
      versions: ['1.0.0'],
      registry,
      insecureRegistries: [host],
      workDir: await testTempDir('example-operator-again-'),
      env: process.env,
    });
    expect(again[0]?.digestRef).toBe(v1?.digestRef);
  });

  it("lists the Greetings with its ServiceAccount's token once the bundle's RBAC is bound, and is not ready before", async () => {
    const cp = inject('envtestControlPlane');
    const admin = { token: cp.adminToken };
    const request = async (method: string, path: string, body?: unknown): Promise<number> => {
      const res = await kubeRequest(cp, { method, path, auth: admin, ...(body === undefined ? {} : { body }) });
      if (res.status >= 300 && res.status !== 409 && res.status !== 404) throw new Error(`${method} ${path}: ${res.status} ${res.body}`);
      return res.status;
    };
    const dir = await testTempDir('example-operator-rbac-');
    const binary = await buildExampleOperatorBinary(await findGoToolchain(process.env), SOURCE, '1.0.0', dir);
    // The bundle's CRD and ClusterRole rules, as OLM would install them.
    const crd = loadAll(await readFile(`${EXAMPLE}bundles/1.0.0/manifests/greetings.demo.example.com.crd.yaml`, 'utf8'))[0];
    await request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    const [csv] = loadAll(await readFile(`${EXAMPLE}bundles/1.0.0/manifests/example-operator.clusterserviceversion.yaml`, 'utf8')) as Array<{
      spec: { install: { spec: { clusterPermissions: Array<{ serviceAccountName: string; rules: unknown[] }> } } };
    }>;
    const [permissions] = csv!.spec.install.spec.clusterPermissions;
    const namespace = `example-operator-rbac-${Date.now().toString(36)}`;
    const sa = permissions!.serviceAccountName;
    await ensureServiceAccount(cp, namespace, sa);
    onTestFinished(async () => {
      await request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${namespace}`);
      await request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${namespace}`);
      await request('DELETE', `/api/v1/namespaces/${namespace}`);
    });
    await expect
      .poll(async () => (await kubeRequest(cp, { path: '/apis/demo.example.com/v1/greetings', auth: admin })).status, {
        timeout: 10_000,
        interval: 100,
        message: 'the Greeting API is served',
      })
      .toBe(200);
    await request('POST', `/apis/demo.example.com/v1/namespaces/${namespace}/greetings`, {
      apiVersion: 'demo.example.com/v1',
      kind: 'Greeting',
      metadata: { name: 'hello', namespace },
      spec: { message: 'hello' },
    });
    const saDir = join(dir, 'serviceaccount');
    await mkdir(saDir);
    await writeFile(join(saDir, 'token'), await requestServiceAccountToken(cp, namespace, sa));
    await writeFile(join(saDir, 'ca.crt'), cp.caPem);
    const server = new URL(cp.server);
    const env = { KUBERNETES_SERVICE_HOST: server.hostname, KUBERNETES_SERVICE_PORT: server.port };
    const { result, log } = await running(
      [binary, '--service-account-dir', saDir, '--list-interval', '100ms'],
      async (base, output) => {
        const readyz = async (): Promise<number> => (await fetch(`${base}/readyz`)).status;
        // No binding yet: once a list has been forbidden, the operator is alive but not ready.
        await expect.poll(() => output().includes('HTTP 403'), { timeout: 10_000, interval: 20, message: 'a forbidden list is logged' }).toBe(true);
        const before = await readyz();
        const health = (await fetch(`${base}/healthz`)).status;
        await request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: namespace },
          rules: permissions!.rules,
        });
        await request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: namespace },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: namespace },
          subjects: [{ kind: 'ServiceAccount', name: sa, namespace }],
        });
        await expect.poll(readyz, { timeout: 10_000, interval: 100, message: 'ready once the binding works' }).toBe(200);
        return { before, health };
      },
      env,
    );
    expect(result).toEqual({ before: 503, health: 200 });
    const forbidden = log.find((l) => l.includes('HTTP 403'));
    expect(forbidden).toContain(`system:serviceaccount:${namespace}:${sa}`);
    const listed = log
      .map((l) => JSON.parse(l) as { msg: string; greetings?: string[] })
      .find((l) => l.msg === 'listed Greetings with the ServiceAccount token');
    expect(listed?.greetings).toContain(`${namespace}/hello`);
  });

  it("is what every example bundle's Deployment runs, with probes on the endpoints it serves and a locked-down container", async () => {
    for (const version of ['0.1.0', '0.2.0', '0.3.0', '1.0.0']) {
      const [csv] = loadAll(await readFile(`${EXAMPLE}bundles/${version}/manifests/example-operator.clusterserviceversion.yaml`, 'utf8')) as Array<{
        metadata: { annotations: Record<string, string> };
        spec: {
          install: {
            spec: { deployments: Array<{ spec: { template: { spec: { securityContext: object; containers: Array<Record<string, unknown>> } } } }> };
          };
        };
      }>;
      const pod = csv!.spec.install.spec.deployments[0]!.spec.template.spec;
      const [container] = pod.containers;
      const ref = `127.0.0.1:5001/olmv1/example-operator:v${version}`;
      expect(container).toMatchObject({
        image: ref,
        ports: [{ name: 'health', containerPort: 8080 }],
        readinessProbe: { httpGet: { path: '/readyz', port: 'health' } },
        livenessProbe: { httpGet: { path: '/healthz', port: 'health' } },
        securityContext: { runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false },
      });
      expect(pod.securityContext).toEqual({ runAsNonRoot: true });
      expect(csv!.metadata.annotations['containerImage']).toBe(ref);
    }
  });
});
