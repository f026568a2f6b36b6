import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { FIXTURE_BUNDLES_DIR } from '../../test/fixtures/bundles/golden-cases.ts';
import { decodeDocuments } from '../../pkg/gocompat/goyaml/index.ts';
import { runRbac } from './rbac.ts';
import type { CommandIO } from './io.ts';

function capture(): CommandIO & { out: () => string; err: () => string } {
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
    const name = 'olmv1-installer:acme-system:installer:acme-widgets.v1.2.0';
    // The bundle's Role rules hold `verbs: ["*"]` on deployments, and the watch namespace is
    // outside the install namespace (expected).
    const err = io.err().split('\n');
    expect(err[0]).toBe('2 grants printed amount to privilege escalation (1 of them expected, as marked); review them before applying:');
    expect(err[1]).toMatch(
      new RegExp(
        `^warning: Role "${name}" in namespace "acme-watched" rules\\[\\d+\\] \\{apiGroups: \\["apps"\\], resources: \\["deployments"\\], verbs: \\["\\*"\\]\\}`,
      ),
    );
    expect(err[2]).toBe(
      `warning: Role and RoleBinding "${name}" in namespace "acme-watched": grant rights outside the install namespace "acme-system"; expected: "acme-watched" is the watch namespace, where the bundle's permissions apply`,
    );
    expect(err.slice(3)).toEqual(['']);
    expect(code).toBe(0);
    const docs = loadAll(io.out()) as { kind: string; metadata: { name: string; namespace?: string } }[];
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

  it('refuses a missing directory that names no registry, and an OwnNamespace-only bundle with the flag to pass', async () => {
    const io = capture();
    expect(await runRbac(['bundels/acme', '--install-namespace', 'ns', '--service-account', 'sa'], io, {})).toBe(1);
    expect(io.err()).toBe(
      'bundle directory "bundels/acme" not found\n(an IMAGE must name its registry, e.g. quay.io/acme/bundle:v1 or localhost:5001/acme/bundle:v1)\n',
    );
    const own = capture();
    expect(await runRbac([join(FIXTURE_BUNDLES_DIR, 'own-only'), '--install-namespace', 'ns', '--service-account', 'sa'], own, {})).toBe(1);
    expect(own.err()).toBe(
      'invalid ClusterExtension configuration: invalid configuration: required field "watchNamespace" is missing\n(the bundle supports only the OwnNamespace install mode: pass --watch-namespace ns, the install namespace)\n',
    );
    expect(own.out()).toBe('');
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

  it("warns on stderr about a hostile bundle's escalating grants; stdout stays the RBAC, exit 0", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'olmv1-rbac-'));
    try {
      // A bundle that asks for the rights to rewrite a built-in role with "*" rules and to bind cluster-admin.
      await cp(join(FIXTURE_BUNDLES_DIR, 'minimal'), dir, { recursive: true });
      await writeFile(
        join(dir, 'manifests', 'rbac.yaml'),
        [
          'apiVersion: rbac.authorization.k8s.io/v1',
          'kind: ClusterRole',
          'metadata: {name: "system:basic-user"}',
          'rules:',
          '  - {apiGroups: ["*"], resources: ["*"], verbs: ["*"]}',
          '---',
          'apiVersion: rbac.authorization.k8s.io/v1',
          'kind: ClusterRoleBinding',
          'metadata: {name: acme-minimal-admin}',
          'roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}',
          'subjects: [{kind: ServiceAccount, name: default, namespace: ns}]',
          '',
        ].join('\n'),
      );
      const role = 'olmv1-installer:ns:sa:acme-minimal.v0.0.1';
      for (const output of ['yaml', 'json']) {
        const io = capture();
        expect(await runRbac([dir, '--install-namespace', 'ns', '--service-account', 'sa', '-o', output], io, {})).toBe(0);
        expect(io.err().split('\n')).toEqual([
          'warning: ClusterRoleBinding "acme-minimal-admin" refers to ClusterRole "cluster-admin", which is not part of the bundle: the ServiceAccount must also hold every permission it grants',
          '3 grants printed amount to privilege escalation; review them before applying:',
          `warning: ClusterRole "${role}" rules[1] {apiGroups: ["rbac.authorization.k8s.io"], resources: ["clusterroles"], resourceNames: ["system:basic-user"], verbs: ["create", "delete", "get", "patch"]}: rights on ["system:basic-user"], named "system:..." like the roles, bindings and identities Kubernetes itself relies on (e.g. system:basic-user is bound to every authenticated user)`,
          `warning: ClusterRole "${role}" rules[3] {apiGroups: ["*"], resources: ["*"], verbs: ["*"]} (from the bundle's ClusterRole "system:basic-user"): "*" in verbs, apiGroups, resources matches every verb (escalate, bind and impersonate included), every API group, every resource (Secrets and RBAC included), and whatever is added later`,
          'warning: ClusterRoleBinding "acme-minimal-admin" roleRef ClusterRole "cluster-admin": binds a role the bundle does not ship: the extension gets every right of that role (not reviewed here), and the ServiceAccount must hold them all (or "bind" on it) to create the binding',
          '',
        ]);
        const docs = (output === 'json' ? (JSON.parse(io.out()) as { items: unknown[] }).items : loadAll(io.out())) as { kind: string }[];
        expect(docs.map((d) => d.kind)).toEqual(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
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
