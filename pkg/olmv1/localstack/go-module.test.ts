import { describe, expect, it } from 'vitest';
import {
  compareDotted,
  goDirectiveFor,
  isLocalPath,
  localReplacementsToPin,
  parseGoMod,
  renderLdflags,
  renderToolsGo,
  renderToolsGoMod,
} from './go-module.ts';
import { goDefaultBinaryName } from './go-toolchain.ts';
import { ETCD_RECIPE, HELM_RECIPE, KUBERNETES_RECIPE, OLDEST_KUBERNETES_RECIPE, REGISTRY_RECIPE, recipeDirName } from './tool-recipes.ts';
import { stagingVersionOf } from './versions.ts';

// Shaped like k8s.io/kubernetes' go.mod: staging siblings required at v0.0.0 and replaced by
// local directories, plus a sample module that is replaced but never required.
const KUBERNETES_LIKE = `// generated, do not edit
module k8s.io/kubernetes

go 1.26.0

godebug default=go1.26

require (
	github.com/spf13/cobra v1.10.2
	go.etcd.io/etcd/server/v3 v3.6.8 // indirect
	k8s.io/api v0.0.0
	k8s.io/client-go v0.0.0
	"k8s.io/kubectl" v0.0.0
)

require k8s.io/component-base v0.0.0 // indirect

replace (
	k8s.io/api => ./staging/src/k8s.io/api
	k8s.io/client-go => ./staging/src/k8s.io/client-go
	k8s.io/component-base => ./staging/src/k8s.io/component-base
	k8s.io/kubectl => ./staging/src/k8s.io/kubectl
	k8s.io/sample-controller => ./staging/src/k8s.io/sample-controller
)
`;

// Shaped like go.etcd.io/etcd/server/v3's go.mod: relative sibling replaces and guards.
const ETCD_LIKE = `module go.etcd.io/etcd/server/v3

go 1.24.0

toolchain go1.24.13

require (
	go.etcd.io/etcd/api/v3 v3.6.8
	go.etcd.io/etcd/client/v3 v3.6.8
	go.uber.org/zap v1.27.0
)

replace (
	go.etcd.io/etcd/api/v3 => ../api
	go.etcd.io/etcd/client/v3 => ../client/v3
)

// Bad imports are sometimes causing attempts to pull that code.
replace go.etcd.io/etcd => ./FORBIDDEN_DEPENDENCY

replace go.etcd.io/tests/v3 => ./FORBIDDEN_DEPENDENCY
replace example.com/forked v1.0.0 => example.com/fork v1.0.1
`;

describe('parseGoMod', () => {
  it('reads module, godebug, requires (block, single-line, quoted, indirect) and replaces', () => {
    const mod = parseGoMod(KUBERNETES_LIKE);
    expect(mod.module).toBe('k8s.io/kubernetes');
    expect(mod.godebug).toEqual(['default=go1.26']);
    expect(mod.requires).toContainEqual({ path: 'k8s.io/kubectl', version: 'v0.0.0' });
    expect(mod.requires).toContainEqual({ path: 'k8s.io/component-base', version: 'v0.0.0' });
    expect(mod.requires).toContainEqual({ path: 'go.etcd.io/etcd/server/v3', version: 'v3.6.8' });
    expect(mod.replaces).toHaveLength(5);
    expect(mod.replaces[0]).toEqual({ from: 'k8s.io/api', to: './staging/src/k8s.io/api' });
  });

  it('reads versioned replaces', () => {
    const mod = parseGoMod(ETCD_LIKE);
    expect(mod.replaces.at(-1)).toEqual({ from: 'example.com/forked', fromVersion: 'v1.0.0', to: 'example.com/fork', toVersion: 'v1.0.1' });
  });

  it('rejects a file without module and names malformed lines', () => {
    expect(() => parseGoMod('go 1.26.0\n')).toThrow('go.mod has no module directive');
    expect(() => parseGoMod('module x\nrequire k8s.io/api\n')).toThrow('go.mod line 2: malformed require "k8s.io/api"');
    expect(() => parseGoMod('module x\nreplace a b\n')).toThrow('go.mod line 2: malformed replace "a b"');
  });
});

describe('localReplacementsToPin', () => {
  it('pins every required sibling that upstream takes from its own tree, sorted', () => {
    const pins = localReplacementsToPin(parseGoMod(KUBERNETES_LIKE), 'v0.36.3');
    expect(pins).toEqual([
      { path: 'k8s.io/api', version: 'v0.36.3' },
      { path: 'k8s.io/client-go', version: 'v0.36.3' },
      { path: 'k8s.io/component-base', version: 'v0.36.3' },
      { path: 'k8s.io/kubectl', version: 'v0.36.3' },
    ]);
  });

  it('skips guard replaces of modules that are not required and module-to-module replaces', () => {
    const pins = localReplacementsToPin(parseGoMod(ETCD_LIKE), 'v3.6.8');
    expect(pins.map((p) => p.path)).toEqual(['go.etcd.io/etcd/api/v3', 'go.etcd.io/etcd/client/v3']);
  });

  it('classifies replace targets', () => {
    for (const local of ['./x', '../api', '/abs/dir', '.', '..']) expect(isLocalPath(local)).toBe(true);
    for (const remote of ['example.com/fork', 'k8s.io/api']) expect(isLocalPath(remote)).toBe(false);
  });
});

describe('renderToolsGoMod', () => {
  it('produces a go.mod that parses back to the same requirements and pins', () => {
    const text = renderToolsGoMod({
      module: 'olmv1.local/envtest/kubernetes',
      goVersion: '1.26.0',
      requires: [{ path: 'k8s.io/kubernetes', version: 'v1.36.3' }],
      pins: [{ path: 'k8s.io/api', version: 'v0.36.3' }],
      godebug: ['default=go1.26'],
    });
    const mod = parseGoMod(text);
    expect(mod.module).toBe('olmv1.local/envtest/kubernetes');
    expect(mod.godebug).toEqual(['default=go1.26']);
    expect(mod.requires).toEqual([{ path: 'k8s.io/kubernetes', version: 'v1.36.3' }]);
    expect(mod.replaces).toEqual([{ from: 'k8s.io/api', to: 'k8s.io/api', toVersion: 'v0.36.3' }]);
  });

  it('omits the replace block when nothing is pinned', () => {
    const text = renderToolsGoMod({ module: 'm', goVersion: '1.26.0', requires: [], pins: [], godebug: [] });
    expect(text).not.toContain('replace');
  });
});

describe('renderToolsGo and renderLdflags', () => {
  it('imports the mains under the tools build tag, sorted', () => {
    const text = renderToolsGo(['k8s.io/kubernetes/cmd/kubectl', 'k8s.io/kubernetes/cmd/kube-apiserver']);
    expect(text.startsWith('//go:build tools\n')).toBe(true);
    expect(text.indexOf('cmd/kube-apiserver')).toBeLessThan(text.indexOf('cmd/kubectl'));
    expect(text).toContain('\t_ "k8s.io/kubernetes/cmd/kubectl"');
  });

  it('stamps -X variables and refuses values that would split the flag', () => {
    expect(renderLdflags({ 'a/b.v': 'v1.2.3' })).toBe('-s -w -X a/b.v=v1.2.3');
    expect(() => renderLdflags({ 'a/b.v': 'has space' })).toThrow('must not contain spaces or quotes');
  });
});

describe('versions', () => {
  it.each([
    ['go1.26.8', '1.26.0'],
    ['go version go1.27rc1 linux/amd64', '1.27.0'],
  ])('goDirectiveFor(%s) = %s', (input, expected) => {
    expect(goDirectiveFor(input)).toBe(expected);
  });

  it('rejects an unreadable Go version', () => {
    expect(() => goDirectiveFor('devel')).toThrow('cannot read a Go version from "devel"');
  });

  it('compares dotted versions numerically', () => {
    expect(compareDotted('1.26.0', '1.9.0')).toBeGreaterThan(0);
    expect(compareDotted('1.25.7', '1.26.0')).toBeLessThan(0);
    expect(compareDotted('1.26', '1.26.0')).toBe(0);
  });

  it('maps Kubernetes releases to staging versions', () => {
    expect(stagingVersionOf('v1.36.3')).toBe('v0.36.3');
    expect(stagingVersionOf('v1.37.0-rc.1')).toBe('v0.37.0-rc.1');
    expect(() => stagingVersionOf('1.36.3')).toThrow('not a Kubernetes v1 release version');
  });
});

describe('recipes', () => {
  it('name binaries the way go build -o DIR does', () => {
    expect(goDefaultBinaryName('k8s.io/kubernetes/cmd/kube-apiserver')).toBe('kube-apiserver');
    expect(goDefaultBinaryName('go.etcd.io/etcd/server/v3')).toBe('server');
    expect(goDefaultBinaryName('./cmd/registry')).toBe('registry');
  });

  it('pin the versions of versions.ts and stamp Kubernetes version variables', () => {
    expect(recipeDirName(KUBERNETES_RECIPE)).toBe('kubernetes-v1.36.3');
    expect(recipeDirName(ETCD_RECIPE)).toBe('etcd-v3.6.8');
    expect(recipeDirName(REGISTRY_RECIPE)).toBe('registry-v3.1.2');
    expect(KUBERNETES_RECIPE.siblingVersion).toBe('v0.36.3');
    expect(KUBERNETES_RECIPE.stamps).toMatchObject({
      'k8s.io/component-base/version.gitVersion': 'v1.36.3',
      'k8s.io/component-base/version.gitMajor': '1',
      'k8s.io/component-base/version.gitMinor': '36',
      'k8s.io/client-go/pkg/version.gitVersion': 'v1.36.3',
    });
    // The oldest supported release (decision 0103): same binaries, its own pins, stamps and cache entry.
    expect(recipeDirName(OLDEST_KUBERNETES_RECIPE)).toBe('kubernetes-v1.33.13');
    expect(OLDEST_KUBERNETES_RECIPE.siblingVersion).toBe('v0.33.13');
    expect(OLDEST_KUBERNETES_RECIPE.binaries).toEqual(KUBERNETES_RECIPE.binaries);
    expect(OLDEST_KUBERNETES_RECIPE.stamps).toMatchObject({
      'k8s.io/component-base/version.gitVersion': 'v1.33.13',
      'k8s.io/component-base/version.gitMinor': '33',
    });
    expect(OLDEST_KUBERNETES_RECIPE.probes.map((p) => p.expect)).toEqual(['Kubernetes v1.33.13', 'Client Version: v1.33.13']);
    expect(REGISTRY_RECIPE.sources['cmd/htpasswd/main.go']).toContain('bcrypt.GenerateFromPassword');
    // helm: the version upstream operator-controller's go.mod requires, stamped as Helm's Makefile does.
    expect(recipeDirName(HELM_RECIPE)).toBe('helm-v3.21.3');
    expect(HELM_RECIPE.stamps).toEqual({ 'helm.sh/helm/v3/internal/version.version': 'v3.21.3' });
  });
});
