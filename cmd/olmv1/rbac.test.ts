import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { FIXTURE_BUNDLES_DIR } from '../../test/fixtures/bundles/golden-cases.ts';
import { decodeDocuments } from '../../pkg/goyaml/index.ts';
import { runRbac } from './rbac.ts';
import type { CommandIo } from './render.ts';

function capture(): CommandIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) }, out: () => out, err: () => err };
}

describe('olmv1 rbac', () => {
  it('prints the ServiceAccount, roles and bindings for kubectl apply', async () => {
    const io = capture();
    const code = await runRbac(
      [
        join(FIXTURE_BUNDLES_DIR, 'multi-crd'),
        '--install-namespace',
        'acme-system',
        '--watch-namespace',
        'acme-watched',
        '--service-account',
        'installer',
      ],
      io,
      {},
    );
    expect(io.err()).toBe('');
    expect(code).toBe(0);
    const docs = loadAll(io.out()) as { kind: string; metadata: { name: string; namespace?: string } }[];
    const name = 'olmv1-installer:acme-system:installer:acme-widgets.v1.2.0';
    expect(docs.map((d) => [d.kind, d.metadata.namespace ?? '', d.metadata.name])).toEqual([
      ['ServiceAccount', 'acme-system', 'installer'],
      ['ClusterRole', '', name],
      ['ClusterRoleBinding', '', name],
      ['Role', 'acme-system', name],
      ['RoleBinding', 'acme-system', name],
      ['Role', 'acme-watched', name],
      ['RoleBinding', 'acme-watched', name],
    ]);
  });

  it('is deterministic', async () => {
    const args = [join(FIXTURE_BUNDLES_DIR, 'webhook'), '--install-namespace', 'hooks', '--service-account', 'sa', '--cert-provider', 'cert-manager'];
    const a = capture();
    const b = capture();
    await runRbac(args, a, {});
    await runRbac(args, b, {});
    expect(a.out()).not.toBe('');
    expect(a.out()).toBe(b.out());
  });

  it('writes warnings to stderr', async () => {
    const io = capture();
    const code = await runRbac([join(FIXTURE_BUNDLES_DIR, 'extra-kinds'), '--install-namespace', 'ns', '--service-account', 'sa'], io, {});
    expect(code).toBe(0);
    expect(io.err()).toContain('warning: ClusterRoleBinding "acme-extras-view" refers to ClusterRole "view"');
  });

  it('requires --service-account (exit 2) and refuses unsupported bundles (exit 1)', async () => {
    const io = capture();
    expect(await runRbac([join(FIXTURE_BUNDLES_DIR, 'multi-crd'), '--install-namespace', 'ns'], io, {})).toBe(2);
    expect(io.err()).toContain('--service-account is required');
    const io2 = capture();
    expect(await runRbac([join(FIXTURE_BUNDLES_DIR, 'webhook'), '--install-namespace', 'ns', '--service-account', 'sa'], io2, {})).toBe(1);
    expect(io2.err()).toBe(
      'unsupported bundle: webhookDefinitions are not supported\n(the bundle has webhooks: render it with --cert-provider cert-manager or --cert-provider openshift-service-ca)\n',
    );
  });

  it('prints the same objects as one v1 List with -o json', async () => {
    const args = [join(FIXTURE_BUNDLES_DIR, 'multi-crd'), '--install-namespace', 'acme-system', '--service-account', 'installer'];
    const yamlIo = capture();
    expect(await runRbac(args, yamlIo, {})).toBe(0);
    const io = capture();
    expect(await runRbac([...args, '-o', 'json'], io, {})).toBe(0);
    expect(JSON.parse(io.out())).toEqual({ apiVersion: 'v1', kind: 'List', items: loadAll(yamlIo.out()) });
  });
  it('prints rules holding a multi-megabyte string', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'olmv1-rbac-'));
    try {
      await cp(join(FIXTURE_BUNDLES_DIR, 'minimal'), dir, { recursive: true });
      const big = 'x'.repeat(4 << 20);
      const csvPath = join(dir, 'manifests', 'csv.yaml');
      const rule = `      clusterPermissions:\n        - serviceAccountName: acme-minimal\n          rules:\n            - {apiGroups: [""], resources: [configmaps], resourceNames: ["${big}"], verbs: [get]}\n`;
      await writeFile(csvPath, (await readFile(csvPath, 'utf8')).replace('    spec:\n      deployments:', `    spec:\n${rule}      deployments:`));
      const io = capture();
      expect(await runRbac([dir, '--install-namespace', 'ns', '--service-account', 'sa'], io, {})).toBe(0);
      expect(io.err()).toBe('');
      const docs = decodeDocuments(io.out());
      if (!docs.ok) throw new Error(docs.error);
      expect(JSON.stringify(docs.value)).toContain(`"resourceNames":["${big}"]`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
