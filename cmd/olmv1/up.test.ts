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
});
