// The local node's generated configuration (pure renderers of node.ts's pieces): what the
// decision 0101 settings look like on disk, the network plan, the prerequisite report, the
// cleanup script (valid sh that touches only what is ours) and the pause image archive.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { clusterDnsObjects, renderCorefile } from './cluster-dns.ts';
import { containerdLayout, renderContainerdConfig, renderRegistryHosts } from './containerd.ts';
import { apiServerArgs } from './control-plane-args.ts';
import { renderKubeProxyConfig } from './kube-proxy.ts';
import { renderKubeletConfig } from './kubelet.ts';
import { ownedChainPattern, renderCleanupScript } from './node-cleanup.ts';
import { firewallCommands, planNetwork, renderCniConflist } from './node-network.ts';
import { missingNodePrerequisites } from './node-prereqs.ts';
import { goArch, ociArchiveOfBinary } from './pause-image.ts';

const net = planNetwork('1: lo    inet 127.0.0.1/8\n10.244.1.0/24 dev x\n', () => 0);

describe('planNetwork', () => {
  it('takes a /24 of 10.244.0.0/16 that no address or route uses, and names everything after one id', () => {
    expect(net).toEqual({
      id: '000000',
      bridge: 'olmv1-000000',
      podCidr: '10.244.2.0/24',
      hostIp: '10.244.2.1',
      inputChain: 'OLMV1-000000-IN',
      forwardChain: 'OLMV1-000000-FWD',
    });
    expect(net.bridge.length).toBeLessThanOrEqual(15);
  });

  it('refuses when a route covers the whole range', () => {
    expect(() => planNetwork('10.0.0.0/8 via 192.0.2.1 dev eth0')).toThrow(/no free \/24/);
  });
});

describe('network rules', () => {
  it('gives Pods routes to the Service range only, without masquerade', () => {
    const conf = JSON.parse(renderCniConflist(net, '10.0.0.0/24', '/n/ipam')) as { plugins: Array<Record<string, unknown>> };
    expect(conf.plugins[0]).toMatchObject({ type: 'bridge', bridge: net.bridge, ipMasq: false, isGateway: true });
    expect((conf.plugins[0] as { ipam: { routes: unknown } }).ipam.routes).toEqual([{ dst: '10.0.0.0/24' }]);
    expect(conf.plugins.map((p) => p['type'])).toEqual(['bridge', 'portmap']);
  });

  it('answers on the host address from loopback and the bridge only, and forwards nothing off the bridge', () => {
    const rules = firewallCommands(net).map((r) => r.join(' '));
    expect(rules).toContain(`-A ${net.inputChain} -d 10.244.2.1/32 -j DROP`);
    expect(rules).toContain(`-A ${net.forwardChain} -i ${net.bridge} -j REJECT`);
    expect(rules).toContain(`-A ${net.forwardChain} -o ${net.bridge} -j REJECT`);
  });
});

describe('missingNodePrerequisites', () => {
  it('names every gap and the apt-get line that fills it', () => {
    const problems = missingNodePrerequisites({ uid: 1000, findCommand: (c) => (c === 'ip' ? '/usr/bin/ip' : undefined), exists: () => false });
    expect(problems[0]).toMatch(/must run as root/);
    expect(problems[1]).toMatch(/^missing containerd, containerd-shim-runc-v2, ctr, runc, iptables, .*\/usr\/lib\/cni\/bridge/);
    expect(problems[1]).toMatch(/apt-get update && apt-get install -y containerd containernetworking-plugins iptables runc$/);
    expect(problems.slice(2).join('\n')).toMatch(/memory controller[\s\S]*modprobe br_netfilter/);
  });

  it('is empty when everything is there', () => {
    expect(missingNodePrerequisites({ uid: 0, findCommand: (c) => `/usr/bin/${c}`, exists: () => true })).toEqual([]);
  });
});

describe('component configuration', () => {
  it('containerd: own paths, the settings these machines need, registry hosts from our directory', () => {
    const layout = containerdLayout('/n/containerd');
    const toml = renderContainerdConfig(layout, 'olmv1.local/pause:abc');
    for (const line of [
      'version = 2',
      'root = "/n/containerd/root"',
      'address = "/n/containerd/containerd.sock"',
      'sandbox_image = "olmv1.local/pause:abc"',
      'restrict_oom_score_adj = true',
      'snapshotter = "overlayfs"',
      'SystemdCgroup = false',
      'Root = "/n/containerd/runc"',
      'bin_dir = "/usr/lib/cni"',
      'conf_dir = "/n/containerd/cni"',
      'config_path = "/n/containerd/hosts"',
    ]) {
      expect(toml).toContain(line);
    }
    expect(renderRegistryHosts('http://127.0.0.1:5000', '127.0.0.1:5000')).toBe(
      'server = "http://127.0.0.1:5000"\n\n[host."http://127.0.0.1:5000"]\n  capabilities = ["pull", "resolve"]\n',
    );
    // A mirror: quay.io's images from the local registry first, quay.io itself the fallback.
    expect(renderRegistryHosts('https://quay.io', '10.244.2.1:5000')).toBe(
      'server = "https://quay.io"\n\n[host."http://10.244.2.1:5000"]\n  capabilities = ["pull", "resolve"]\n',
    );
  });

  it('kubelet: cgroupfs without QoS cgroups, no eviction, webhook auth, cluster DNS', () => {
    const config = load(
      renderKubeletConfig({
        address: '10.244.2.1',
        port: 1,
        clientCaPath: '/ca',
        tlsCertPath: '/c',
        tlsKeyPath: '/k',
        containerdSocket: '/s',
        clusterDns: '10.0.0.10',
        clusterDomain: 'cluster.local',
        podCidr: net.podCidr,
      }),
    );
    expect(config).toMatchObject({
      failCgroupV1: false,
      cgroupDriver: 'cgroupfs',
      cgroupsPerQOS: false,
      enforceNodeAllocatable: [],
      failSwapOn: false,
      localStorageCapacityIsolation: false,
      evictionHard: {},
      authentication: { anonymous: { enabled: false }, webhook: { enabled: true }, x509: { clientCAFile: '/ca' } },
      authorization: { mode: 'Webhook' },
      containerRuntimeEndpoint: 'unix:///s',
      clusterDNS: ['10.0.0.10'],
      clusterDomain: 'cluster.local',
    });
  });

  it('kube-proxy: iptables mode that leaves conntrack sysctls and localhost alone', () => {
    const config = load(
      renderKubeProxyConfig({ kubeconfig: '/kc', nodeName: 'n', nodeIp: '10.244.2.1', podCidr: net.podCidr, healthzPort: 1, metricsPort: 2 }),
    );
    expect(config).toMatchObject({
      mode: 'iptables',
      clusterCIDR: '10.244.2.0/24',
      nodePortAddresses: ['10.244.2.1/32'],
      iptables: { localhostNodePorts: false },
      conntrack: { maxPerCore: 0 },
    });
  });

  it('cluster DNS: CoreDNS on the host address, the kube-dns Service routed to it by an EndpointSlice', () => {
    expect(renderCorefile({ address: '10.244.2.1', kubeconfig: '/kc', readyPort: 9 })).toContain(
      'kubernetes cluster.local in-addr.arpa ip6.arpa {\n    kubeconfig /kc',
    );
    const [, , service, slice] = clusterDnsObjects({ clusterIp: '10.0.0.10', hostIp: '10.244.2.1', port: 5353 });
    expect(service?.body).toMatchObject({
      spec: { clusterIP: '10.0.0.10', ports: [{ name: 'dns', port: 53, targetPort: 5353, protocol: 'UDP' }, { name: 'dns-tcp' }] },
    });
    expect(slice?.body).toMatchObject({
      endpoints: [{ addresses: ['10.244.2.1'] }],
      ports: [
        { name: 'dns', port: 5353 },
        { name: 'dns-tcp', port: 5353 },
      ],
    });
  });

  it('kube-apiserver: with a node, listens and advertises on the bridge address and reaches kubelets by InternalIP', () => {
    const base = {
      etcdUrl: 'http://e',
      securePort: 1,
      tlsCertPath: 'c',
      tlsKeyPath: 'k',
      clientCaPath: 'ca',
      tokenAuthPath: 't',
      serviceAccountPublicKeyPath: 'p',
      serviceAccountPrivateKeyPath: 's',
    };
    const args = apiServerArgs({
      ...base,
      node: { address: '10.244.2.1', kubeletClientCertPath: 'kc', kubeletClientKeyPath: 'kk', kubeletCaPath: 'ca' },
    });
    expect(args).toEqual(
      expect.arrayContaining([
        '--bind-address=10.244.2.1',
        '--advertise-address=10.244.2.1',
        '--authorization-mode=Node,RBAC',
        '--kubelet-preferred-address-types=InternalIP',
      ]),
    );
    expect(args.join(' ')).not.toMatch(/127\.0\.0\.1|disable-admission-plugins=ServiceAccount|endpoint-reconciler-type=none/);
  });
});

describe('renderCleanupScript', () => {
  const plan = {
    nodeDir: '/tmp/x/node',
    runcRoot: '/tmp/x/node/containerd/runc',
    containerdRoot: '/tmp/x/node/containerd/root',
    containerdState: '/tmp/x/node/containerd/state',
    containerdSocket: '/tmp/x/node/containerd/containerd.sock',
    network: net,
    chainsBefore: { 'iptables/nat': ['KUBE-OLD'] },
    sysctls: [{ path: '/proc/sys/net/ipv4/ip_forward', before: '0', value: '1' }],
  };

  it('is valid sh that removes only our chains, mounts, bridge and shims', () => {
    const script = renderCleanupScript(plan);
    const dir = mkdtempSync(join(tmpdir(), 'node-cleanup-'));
    try {
      writeFileSync(join(dir, 'c.sh'), script);
      execFileSync('/bin/sh', ['-n', join(dir, 'c.sh')]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(ownedChainPattern(net)).toBe('^(KUBE-|CNI-|OLMV1-000000-)');
    expect(script).toContain("grep -vE '^(KUBE-OLD)$'");
    expect(script).toContain("ip link del 'olmv1-000000'");
    expect(script).toContain("grep -qF -- '-address /tmp/x/node/containerd/containerd.sock'");
    expect(script).toContain("echo '0' > '/proc/sys/net/ipv4/ip_forward'");
  });
});

describe('ociArchiveOfBinary', () => {
  it('writes an OCI layout whose index names the image and whose config runs the binary', () => {
    const { archive, digest } = ociArchiveOfBinary({ name: 'olmv1.local/pause:x', file: 'pause', binary: Buffer.from('ELF'), arch: 'amd64' });
    const dir = mkdtempSync(join(tmpdir(), 'oci-'));
    try {
      writeFileSync(join(dir, 'a.tar'), archive);
      execFileSync('tar', ['-xf', join(dir, 'a.tar'), '-C', dir]);
      const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as {
        manifests: Array<{ digest: string; annotations: Record<string, string> }>;
      };
      expect(index.manifests[0]).toMatchObject({ digest, annotations: { 'io.containerd.image.name': 'olmv1.local/pause:x' } });
      const blob = (d: string): Buffer => readFileSync(join(dir, 'blobs', 'sha256', d.slice('sha256:'.length)));
      const manifest = JSON.parse(blob(digest).toString()) as { config: { digest: string }; layers: Array<{ digest: string }> };
      expect(JSON.parse(blob(manifest.config.digest).toString())).toMatchObject({
        architecture: 'amd64',
        os: 'linux',
        config: { Entrypoint: ['/pause'] },
      });
      const layer = gunzipSync(blob(manifest.layers[0]?.digest ?? ''));
      expect(layer.subarray(0, 5).toString()).toBe('pause');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(goArch('x64')).toBe('amd64');
  });
});
