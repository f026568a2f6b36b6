import { EventEmitter } from 'node:events';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureIO } from '../../test/support/command-io.ts';
import { testTempDir } from '../../test/support/temp-dir.ts';
import { runUp } from './up.ts';

describe('olmv1 up', () => {
  it('exits 1 at once, naming the cause and leaving nothing running, when it cannot start the control plane', async () => {
    const cwd = await testTempDir('olmv1-up-');
    const io = captureIO();
    const signals = new EventEmitter();
    const code = await runUp([], io, {
      env: { KUBEBUILDER_ASSETS: join(cwd, 'no-such-assets'), HOME: cwd },
      cwd,
      node: process.execPath,
      insecureRegistries: ['localhost'],
      signals,
    });
    expect(code).toBe(1);
    expect(io.out()).toBe('');
    const text = io.err();
    expect(text).toContain(`KUBEBUILDER_ASSETS=${join(cwd, 'no-such-assets')} lacks kube-apiserver, etcd, kubectl`);
    expect(text).toMatch(/olmv1 up: stopped; nothing left running\n$/);
    expect(await readdir(join(cwd, '.olmv1'))).toEqual(['logs']);
    expect(signals.listenerCount('SIGINT') + signals.listenerCount('SIGTERM')).toBe(0);
  });

  it('with --node, names every missing prerequisite with its remedy and exits 1 before building or starting anything', async () => {
    const cwd = await testTempDir('olmv1-up-');
    const io = captureIO();
    const signals = new EventEmitter();
    const missing = [
      'it must run as root (containerd, runc, bridges, mounts and iptables need it)',
      'missing runc: apt-get update && apt-get install -y runc',
    ];
    const code = await runUp(['--node'], io, {
      // Assets that do not exist: had up gone on, it would name them instead.
      env: { KUBEBUILDER_ASSETS: join(cwd, 'no-such-assets'), HOME: cwd },
      cwd,
      node: process.execPath,
      insecureRegistries: ['localhost'],
      signals,
      missingNodePrerequisites: () => missing,
    });
    expect(code).toBe(1);
    expect(io.out()).toBe('');
    expect(io.err()).toBe(
      'olmv1 up: --node: a local node cannot start on this machine:\n' +
        `  - ${missing[0]}\n  - ${missing[1]}\n` +
        'Without --node, olmv1 up runs everything but Pods (the example operator installs, its Deployment never becomes available).\n' +
        'olmv1 up: stopped; nothing left running\n',
    );
    expect(await readdir(join(cwd, '.olmv1'))).toEqual(['logs']);
    expect(signals.listenerCount('SIGINT') + signals.listenerCount('SIGTERM')).toBe(0);
  });

  it('exits 2 on an unknown feature gate, naming the known ones, before writing or starting anything', async () => {
    const cwd = await testTempDir('olmv1-up-');
    const io = captureIO();
    const signals = new EventEmitter();
    const code = await runUp(['--node', '--in-cluster', '--feature-gates', 'NoSuchGate=true'], io, {
      env: { KUBEBUILDER_ASSETS: join(cwd, 'no-such-assets'), HOME: cwd },
      cwd,
      node: process.execPath,
      insecureRegistries: ['localhost'],
      signals,
      missingNodePrerequisites: () => ['never asked'],
    });
    expect(code).toBe(2);
    expect(io.out()).toBe('');
    expect(io.err()).toMatch(/^Error: --feature-gates: unknown gate "NoSuchGate"; known gates: catalogd APIV1MetasHandler, GraphQLCatalogQueries; /);
    expect(io.err()).toContain('Usage: olmv1 up');
    expect(await readdir(cwd)).toEqual([]);
    expect(signals.listenerCount('SIGINT') + signals.listenerCount('SIGTERM')).toBe(0);
  });

  it('with --in-cluster, names the missing image build tools and exits 1 before building or starting anything', async () => {
    const cwd = await testTempDir('olmv1-up-');
    const io = captureIO();
    const code = await runUp(['--node', '--in-cluster'], io, {
      env: { KUBEBUILDER_ASSETS: join(cwd, 'no-such-assets'), HOME: cwd },
      cwd,
      node: process.execPath,
      insecureRegistries: ['localhost'],
      signals: new EventEmitter(),
      missingNodePrerequisites: () => [],
      missingImageBuildPrerequisites: () => ['no buildah (apt-get install -y buildah)'],
    });
    expect(code).toBe(1);
    expect(io.err()).toBe(
      "olmv1 up: --in-cluster: the project's image cannot be built on this machine:\n" +
        '  - no buildah (apt-get install -y buildah)\n' +
        'Without --in-cluster, olmv1 up --node runs catalogd and operator-controller as processes here.\n' +
        'olmv1 up: stopped; nothing left running\n',
    );
  });
});
