/**
 * Finding the machine's Go toolchain and running it with a controlled environment.
 */
import { delimiter, join } from 'node:path';
import { isExecutable, runCommand, type RunResult } from './exec.ts';
import { compareDotted, goDirectiveFor } from './go-module.ts';
import { MINIMUM_GO_VERSION } from './versions.ts';

/** Where `go` is looked for when it is not on PATH. */
const FALLBACK_GO = '/usr/local/go/bin/go';

/** A usable Go toolchain. */
export interface GoToolchain {
  /** Absolute path of the `go` binary. */
  path: string;
  /** `GOVERSION`, e.g. `go1.26.8`. */
  version: string;
  /** Environment every go invocation runs with. */
  env: NodeJS.ProcessEnv;
  /**
   * The niceness builds run at (`nice -n`), from `OLMV1_GO_BUILD_NICENESS` in the environment
   * given: a build in the background of something else (the tests' background builds) gives way
   * to it. Undefined: the caller's.
   */
  niceness?: number;
}

/**
 * Locates `go` (first on `env.PATH`, then FALLBACK_GO), at least MINIMUM_GO_VERSION, or throws
 * saying what to install. Its environment is `env` with CGO off (static binaries), no toolchain
 * downloads, and neither the user's go.work nor their GOFLAGS capturing our modules.
 */
export async function findGoToolchain(env: NodeJS.ProcessEnv): Promise<GoToolchain> {
  const candidates = [
    ...(env['PATH'] ?? '')
      .split(delimiter)
      .filter((d) => d !== '')
      .map((d) => join(d, 'go')),
    FALLBACK_GO,
  ];
  const path = candidates.find(isExecutable);
  const hint = `building the envtest binaries needs Go >= ${MINIMUM_GO_VERSION}`;
  if (path === undefined) {
    throw new Error(
      `${hint}: no "go" on PATH or at ${FALLBACK_GO}; install Go, or set KUBEBUILDER_ASSETS to a directory with kube-apiserver, etcd and kubectl (the registry is always built with Go)`,
    );
  }
  const buildEnv: NodeJS.ProcessEnv = { ...env, CGO_ENABLED: '0', GOTOOLCHAIN: 'local', GOWORK: 'off', GOFLAGS: '-mod=mod' };
  const { stdout } = await runCommand(path, ['env', 'GOVERSION'], { env: buildEnv });
  const version = stdout.trim();
  const languageVersion = goDirectiveFor(version);
  if (compareDotted(languageVersion, MINIMUM_GO_VERSION) < 0) {
    throw new Error(`${hint}, but ${path} is ${version}; install a newer Go or put it first on PATH`);
  }
  const niceness = Number.parseInt(env['OLMV1_GO_BUILD_NICENESS'] ?? '', 10);
  return { path, version, env: buildEnv, ...(Number.isInteger(niceness) && niceness > 0 ? { niceness: Math.min(niceness, 19) } : {}) };
}

/** Runs `go args...` in `cwd` with the toolchain's environment; errors as runCommand. */
export async function runGo(go: GoToolchain, args: readonly string[], cwd: string): Promise<RunResult> {
  if (go.niceness !== undefined) return runCommand('nice', ['-n', String(go.niceness), go.path, ...args], { cwd, env: go.env });
  return runCommand(go.path, args, { cwd, env: go.env });
}

/**
 * The file name `go build -o DIR` gives the binary of a main package: its last path element,
 * or the one before a major-version suffix (`go.etcd.io/etcd/server/v3` -> `server`).
 */
export function goDefaultBinaryName(pkg: string): string {
  const elements = pkg.split('/').filter((e) => e !== '' && e !== '.');
  const last = elements.at(-1);
  if (last === undefined) throw new Error(`not a package path: "${pkg}"`);
  if (/^v\d+$/.test(last) && elements.length > 1) return elements.at(-2) ?? last;
  return last;
}
