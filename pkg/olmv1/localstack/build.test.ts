// Scheduling and messages of the envtest builds, with a fake `go` (a shell script) instead of
// real builds: one Go build at a time across callers, none killed for taking long, and a build
// that was interrupted or failed is announced as resuming on the next run.
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveBinaries } from './binaries.ts';
import { buildStartMessage, ensureTool } from './build.ts';
import { findGoToolchain } from './go-toolchain.ts';
import { ETCD_RECIPE, KUBE_CONTROLLER_MANAGER_RECIPE, KUBERNETES_RECIPE, REGISTRY_RECIPE, coldBuildEstimate } from './tool-recipes.ts';
import { ETCD_VERSION, KUBERNETES_VERSION, REGISTRY_VERSION } from './versions.ts';

const BUILD_TS = fileURLToPath(new URL('./build.ts', import.meta.url));
const RECIPES_TS = fileURLToPath(new URL('./tool-recipes.ts', import.meta.url));
const TOOLCHAIN_TS = fileURLToPath(new URL('./go-toolchain.ts', import.meta.url));

// What every fake binary prints: enough for each recipe's version probe.
const VERSIONS = [
  `Kubernetes ${KUBERNETES_VERSION}`,
  `Client Version: ${KUBERNETES_VERSION}`,
  `etcd Version: ${ETCD_VERSION.slice(1)}`,
  `github.com/distribution/distribution/v3 ${REGISTRY_VERSION}`,
];

/**
 * A `go` that answers `env GOVERSION`, `mod download -json` and `mod tidy`, and whose `build`
 * logs `start|end <first package> <ms> <pid>` around a short sleep, copies $FAKE_BINARY for
 * each main package, and fails when $FAKE_GO_FAIL is a substring of the packages or blocks when
 * $FAKE_GO_BLOCK is.
 */
const FAKE_GO = `#!/bin/sh
case "$1" in
  env) echo go1.26.8; exit 0 ;;
  mod)
    if [ "$2" = download ]; then
      printf 'module fake\\n\\ngo 1.26.0\\n' > "$PWD/upstream.mod"
      printf '{"GoMod":"%s"}\\n' "$PWD/upstream.mod"
    fi
    exit 0 ;;
  build)
    shift
    out=""; pkgs=""
    while [ $# -gt 0 ]; do
      case "$1" in
        -o) out="$2"; shift 2 ;;
        -*) shift ;;
        *) pkgs="$pkgs $1"; shift ;;
      esac
    done
    first=$(echo $pkgs | cut -d' ' -f1)
    echo "start $first $(date +%s%3N) $$" >> "$FAKE_GO_LOG"
    case "$pkgs" in *"$FAKE_GO_FAIL"*) if [ -n "$FAKE_GO_FAIL" ]; then echo "compile error in $first" >&2; exit 1; fi ;; esac
    case "$pkgs" in *"$FAKE_GO_BLOCK"*) if [ -n "$FAKE_GO_BLOCK" ]; then exec sleep 600; fi ;; esac
    sleep 0.3
    for p in $pkgs; do
      name=$(basename "$p")
      case "$name" in v[0-9]*) name=$(basename "$(dirname "$p")") ;; esac
      cp "$FAKE_BINARY" "$out/$name"
    done
    echo "end $first $(date +%s%3N) $$" >> "$FAKE_GO_LOG"
    exit 0 ;;
esac
echo "fake go: unexpected $*" >&2
exit 2
`;

let dir: string;
let cacheRoot: string;
let env: NodeJS.ProcessEnv;
let buildLog: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'localstack-build-'));
  cacheRoot = join(dir, 'cache');
  buildLog = join(dir, 'builds.log');
  await mkdir(join(dir, 'bin'));
  await writeFile(join(dir, 'bin', 'go'), FAKE_GO);
  await chmod(join(dir, 'bin', 'go'), 0o755);
  await writeFile(join(dir, 'fake-binary'), `#!/bin/sh\n${VERSIONS.map((v) => `echo '${v}'`).join('\n')}\n`);
  await chmod(join(dir, 'fake-binary'), 0o755);
  await writeFile(buildLog, '');
  env = { PATH: `${join(dir, 'bin')}:/usr/bin:/bin`, FAKE_GO_LOG: buildLog, FAKE_BINARY: join(dir, 'fake-binary'), HOME: dir };
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Build {
  pkg: string;
  start: number;
  end: number | undefined;
  pid: number;
}

async function builds(): Promise<Build[]> {
  const out = new Map<string, Build>();
  for (const line of (await readFile(buildLog, 'utf8')).split('\n').filter((l) => l !== '')) {
    const [what, pkg = '', ms = '0', pid = '0'] = line.split(' ');
    const key = `${pkg} ${pid}`;
    if (what === 'start') out.set(key, { pkg, start: Number(ms), end: undefined, pid: Number(pid) });
    else (out.get(key) as Build).end = Number(ms);
  }
  return [...out.values()];
}

describe('envtest builds', () => {
  it('run one at a time, small ones first, each once, even for two callers at the same moment', async () => {
    const lines: string[] = [];
    const log = (line: string): void => void lines.push(line);
    const [a, b] = await Promise.all([resolveBinaries({ cacheRoot, env, log }), resolveBinaries({ cacheRoot, env, log })]);
    expect(a).toEqual(b);
    const done = await builds();
    expect(done.map((x) => x.pkg)).toEqual([
      './cmd/registry',
      'go.etcd.io/etcd/server/v3',
      'k8s.io/kubernetes/cmd/kube-apiserver',
      'k8s.io/kubernetes/cmd/kube-controller-manager',
    ]);
    for (let i = 1; i < done.length; i++) expect((done[i] as Build).start).toBeGreaterThanOrEqual((done[i - 1] as Build).end ?? Infinity);
    expect(lines.filter((l) => l.startsWith('building '))).toEqual([
      buildStartMessage(REGISTRY_RECIPE, 'go1.26.8', undefined, availableParallelism()),
      buildStartMessage(ETCD_RECIPE, 'go1.26.8', undefined, availableParallelism()),
      buildStartMessage(KUBERNETES_RECIPE, 'go1.26.8', undefined, availableParallelism()),
      buildStartMessage(KUBE_CONTROLLER_MANAGER_RECIPE, 'go1.26.8', undefined, availableParallelism()),
    ]);
    expect(lines.some((l) => /^waiting for pid \d+ on \S+ to finish its Go build before building \S+ v/.test(l))).toBe(true);
    expect((await readdir(cacheRoot)).sort()).toEqual(['etcd-v3.6.8', 'kube-controller-manager-v1.36.3', 'kubernetes-v1.36.3', 'registry-v3.1.2']);
  });

  it('says that a failed build resumes from the Go build cache, and forgets it once built', async () => {
    const failing = { ...env, FAKE_GO_FAIL: 'server/v3' };
    const go = () => findGoToolchain(failing);
    await expect(ensureTool(ETCD_RECIPE, cacheRoot, go, () => undefined)).rejects.toThrow(/compile error in go\.etcd\.io\/etcd\/server\/v3/);

    const lines: string[] = [];
    await ensureTool(
      ETCD_RECIPE,
      cacheRoot,
      () => findGoToolchain(env),
      (l) => void lines.push(l),
    );
    const [again] = lines;
    expect(again).toMatch(
      /^building etcd v3\.6\.8 again with go1\.26\.8: the build started at \S+ failed \(command ".*" exited with status 1: compile error in go\.etcd\.io\/etcd\/server\/v3\); it resumes from what Go's build cache kept, so it takes less than a cold build \(about \d+ minutes? on \d+ idle cores?\)$/,
    );
    expect(await readdir(cacheRoot)).toEqual(['etcd-v3.6.8']);
  });

  it('says that an interrupted build resumes: its process killed in the middle, the next run takes over', async () => {
    // A separate Node process runs the build and is killed while `go build` runs.
    const script = `
      import { ensureTool } from ${JSON.stringify(BUILD_TS)};
      import { REGISTRY_RECIPE } from ${JSON.stringify(RECIPES_TS)};
      import { findGoToolchain } from ${JSON.stringify(TOOLCHAIN_TS)};
      const env = JSON.parse(process.argv[1]);
      await ensureTool(REGISTRY_RECIPE, process.argv[2], () => findGoToolchain(env), () => {});
    `;
    const child = spawn(
      process.execPath,
      ['--input-type=module', '-e', script, JSON.stringify({ ...env, FAKE_GO_BLOCK: 'cmd/registry' }), cacheRoot],
      {
        stdio: 'ignore',
      },
    );
    const exited = new Promise((done) => child.once('exit', done));
    try {
      await expect.poll(async () => (await builds()).length, { timeout: 60_000 }).toBe(1);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    const [blocked] = await builds();
    process.kill((blocked as Build).pid, 'SIGKILL'); // the orphaned fake `go`

    const lines: string[] = [];
    await ensureTool(
      REGISTRY_RECIPE,
      cacheRoot,
      () => findGoToolchain(env),
      (l) => void lines.push(l),
    );
    expect(lines[0]).toMatch(
      /^building registry, htpasswd v3\.1\.2 again with go1\.26\.8: the build started at \S+ was interrupted; it resumes from what Go's build cache kept/,
    );
    // The killed run's half-built stage is gone; only the finished entry remains.
    expect(await readdir(cacheRoot)).toEqual(['registry-v3.1.2']);
  });

  it('estimates cold builds from their CPU time and the cores: about 11 minutes in all on 2 idle cores', () => {
    expect(coldBuildEstimate([REGISTRY_RECIPE], 2)).toBe('about 2 minutes on 2 idle cores');
    expect(coldBuildEstimate([ETCD_RECIPE], 2)).toBe('about 2 minutes on 2 idle cores');
    expect(coldBuildEstimate([KUBERNETES_RECIPE], 2)).toBe('about 7 minutes on 2 idle cores');
    expect(coldBuildEstimate([REGISTRY_RECIPE, ETCD_RECIPE, KUBERNETES_RECIPE], 2)).toBe('about 10 minutes on 2 idle cores');
    // kube-controller-manager, built after kube-apiserver, adds its incremental 90 CPU-seconds.
    expect(coldBuildEstimate([REGISTRY_RECIPE, ETCD_RECIPE, KUBERNETES_RECIPE, KUBE_CONTROLLER_MANAGER_RECIPE], 2)).toBe(
      'about 11 minutes on 2 idle cores',
    );
    expect(coldBuildEstimate([REGISTRY_RECIPE], 1)).toBe('about 4 minutes on 1 idle core');
    expect(buildStartMessage(ETCD_RECIPE, 'go1.26.8', undefined, 2)).toBe(
      'building etcd v3.6.8 from Go modules with go1.26.8 (first run only; about 2 minutes on 2 idle cores, longer on a busy machine)',
    );
  });
});
