/**
 * The measured procedure of one controller side of the `runtimes` benchmark
 * (bench/benchmarks/runtimes.ts), on a stack with kube-apiserver's audit log and
 * kube-controller-manager (upstream's uninstall leaves the objects to its garbage collector):
 *
 * 1. one extension installed and uninstalled, each of `ones` in turn, the first a warm-up (install
 *    from the ClusterExtension's create by the bench's client, as the floors are timed from their
 *    first apply, not from a kubectl process's start, until Installed=True; uninstall from the DELETE until the ClusterExtension and its objects are
 *    gone, bench/lib/uninstall-runs.ts);
 * 2. the group's extensions in one `kubectl apply`, until all are Installed=True and the
 *    controller has made no request but its Lease's for QUIET_MS; CPU of the controller and
 *    kube-apiserver, requests (audit log), the controller's RSS then;
 * 3. at rest for `idleMs`: CPU and requests;
 * 4. the group's ClusterCatalog changed to an image adding 1.0.1 to every package, until all
 *    are Installed=True at 1.0.1 and quiet again;
 * 5. all deleted at once, until they and their objects are gone.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type AuditEvent, type AuditLog, asExtensionServiceAccount, describeRequests } from './audit-log.ts';
import { type PushedBundle, clusterExtension } from './extension-bundles.ts';
import { isInstalledAs } from './extension-runs.ts';
import type { OlmStack } from './olm-stack.ts';
import { RssSampler, mappingRss, procMemory, type MappingRss } from './proc.ts';
import { type Attribution, type PhaseRequests, isLease, untilQuiet } from './request-counts.ts';
import { requestTimeline } from './request-timeline.ts';
import type { SideFigures } from './runtime-table.ts';
import { type ClusterWatch, controlPlaneProcesses, cpuMeter, installRun, stampFirst } from './scale-runs.ts';
import { median } from './stats.ts';
import { sleep } from './http-load.ts';
import { type ObjectWatch, installThenUninstall, timeUninstall } from './uninstall-runs.ts';

const QUIET_MS = 5_000;
const SA = 'installer';
const CATALOG = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog' } as const;

/**
 * One side's packages: one per single install (a package of its own each round: ours keeps CRDs on
 * uninstall), versions 1.0.0 and 1.0.1 of the many, its catalog and update image.
 */
export interface SideGroup {
  label: string;
  catalog: string;
  ones: PushedBundle[];
  v1: PushedBundle[];
  v2: PushedBundle[];
  updateRef: string;
}

/** The running controller of a side. */
export interface SideController {
  pid: number;
  /** Waits until it is done with what it was doing (ours: its metrics; upstream's: a fixed wait). */
  settle: () => Promise<void>;
  who: Attribution;
  /** Starts a CPU profile of it (ours, when asked for one at rest); the function returned ends it. */
  profile?: () => Promise<() => Promise<unknown>>;
}

export interface SideOptions {
  workDir: string;
  idleMs: number;
  timeoutMs: number;
  log: (line: string) => void;
  /** Where to write the controller's CPU profile at rest (when it has `profile`). */
  idleProfile?: string;
  /** A directory: each single install's requests as a timeline (request-timeline.ts), a file a round. */
  traceDir?: string;
}

/** Everything a side measured: the table's figures and the raw runs. */
export interface SideResult {
  figures: SideFigures;
  raw: Record<string, unknown>;
}

/** Requests by verb and resource, the controller's own apart from those made as the extensions' installers. */
const byWho = (events: readonly AuditEvent[]): string =>
  `as itself ${describeRequests(events.filter((e) => !asExtensionServiceAccount(e)))}; as the installers ${describeRequests(events.filter(asExtensionServiceAccount))}`;

const apiserver = (c: Record<string, number>): number => c['kube-apiserver'] ?? Number.NaN;
const controllerCpu = (c: Record<string, number>): number => c['controller'] ?? Number.NaN;

/** A phase's peak RSS and the controller's resident memory by kind of mapping at it, in MB. */
interface PhasePeak {
  rssMB: number;
  /** Pages of the node binary and libraries. */
  fileMB?: number;
  /** glibc's main arena. */
  brkMB?: number;
  /** Anonymous mappings up to 1 MiB (V8's heap pages, glibc's mmap'd chunks) and larger (thread arenas, large chunks). */
  anonSmallMB?: number;
  anonLargeMB?: number;
}

function phasePeak({ max, detail }: { max: number; detail: MappingRss | undefined }): PhasePeak {
  const mb = (b: number): number => Math.round(b / 1e5) / 10;
  if (detail === undefined) return { rssMB: mb(max) };
  const { upTo1M, upTo16M, upTo64M, over64M } = detail.anonBySize;
  return { rssMB: mb(max), fileMB: mb(detail.file), brkMB: mb(detail.brk), anonSmallMB: mb(upTo1M), anonLargeMB: mb(upTo16M + upTo64M + over64M) };
}

function describePeak(p: PhasePeak): string {
  if (p.fileMB === undefined) return `${p.rssMB} MB`;
  return `${p.rssMB} MB (files ${p.fileMB}, brk ${p.brkMB}, anonymous up to 1 MiB ${p.anonSmallMB}, larger ${p.anonLargeMB})`;
}

/** Runs steps 1-5 of the module comment for `g` with controller `c`. */
export async function runSide(
  stack: OlmStack,
  watch: ClusterWatch,
  objects: ObjectWatch,
  audit: AuditLog,
  g: SideGroup,
  c: SideController,
  o: SideOptions,
): Promise<SideResult> {
  const n = g.v1.length;
  const rss = new RssSampler(200, c.pid, () => mappingRss(c.pid));
  // Each phase's peak and the controller's mappings at it: which phase, and what kind of memory, makes the peak.
  const peaks: Record<string, PhasePeak> = {};
  const peakOf = (phase: string): void => {
    const p = phasePeak(rss.takePhase());
    peaks[phase] = p;
    o.log(`${g.label}: peak RSS during ${phase}: ${describePeak(p)}`);
  };
  try {
    const one = [];
    for (const [i, b] of g.ones.entries()) {
      const traceFrom = o.traceDir === undefined ? 0 : await audit.offset();
      const traceStart = Date.now();
      const r = await installThenUninstall(stack, watch, objects, {
        manifests: [clusterExtension(b.pkg, b, b.pkg, SA)],
        bundles: new Map([[b.pkg, b.name]]),
        file: join(o.workDir, `${g.label}-one.yaml`),
        timeoutMs: o.timeoutMs,
        settle: c.settle,
        // Timed from the ClusterExtension's create, as the floors are from their first apply.
        byClient: true,
      });
      if (r.objects === 0) throw new Error(`${g.label}: no object of ${b.pkg} carries the owner labels; nothing to time the uninstall by`);
      o.log(`${g.label}: ${i === 0 ? 'warm-up' : `round ${i}`}: installed in ${Math.round(r.install.allMs)} ms, gone in ${Math.round(r.doneMs)} ms`);
      if (i > 0) one.push(r);
      if (o.traceDir !== undefined) {
        const events = await audit.readSince(traceFrom);
        const install = requestTimeline(events, traceStart, r.install.allMs + 50);
        // The uninstall from its DELETE of the ClusterExtension, until its objects were gone.
        const del = events.find((e) => e.verb === 'delete' && e.objectRef?.resource === 'clusterextensions');
        const uninstall = del === undefined ? [] : requestTimeline(events, Date.parse(del.requestReceivedTimestamp), r.doneMs + 50);
        const text = ['install, ms from the create:', ...install, '', 'uninstall, ms from the DELETE:', ...uninstall];
        await writeFile(join(o.traceDir, `${g.label}-${i === 0 ? 'warm-up' : `round-${i}`}.txt`), `${text.join('\n')}\n`);
      }
    }
    await c.settle();
    peakOf('single installs and uninstalls');

    const groups = { controller: [c.pid], ...controlPlaneProcesses(stack) };
    const phase = async (startMs: number, offset: number): Promise<PhaseRequests> =>
      untilQuiet(audit, offset, c.who, { startMs, quietMs: QUIET_MS, timeoutMs: o.timeoutMs });

    let offset = await audit.offset();
    let startMs = Date.now();
    let cpu = cpuMeter(groups);
    const install = await installRun(stack, watch, {
      manifests: g.v1.map((b) => clusterExtension(b.pkg, b, b.pkg, SA)),
      bundles: new Map(g.v1.map((b) => [b.pkg, b.name])),
      file: join(o.workDir, `${g.label}-many.yaml`),
      timeoutMs: o.timeoutMs,
    });
    const installRequests = await phase(startMs, offset);
    const installCpu = cpu();
    const settledRss = procMemory(c.pid)?.rss ?? Number.NaN;
    peakOf(`the install of ${n}`);
    o.log(
      `${g.label}: ${n} installed in ${Math.round(install.allMs)} ms, ${installRequests.events.length} requests until quiet: ${byWho(installRequests.events)}`,
    );

    offset = await audit.offset();
    const idleCpu = cpuMeter(groups);
    const t0 = Date.now();
    const stopProfile = o.idleProfile === undefined ? undefined : await c.profile?.();
    await sleep(o.idleMs);
    const idleCpuS = idleCpu();
    if (stopProfile !== undefined && o.idleProfile !== undefined) {
      await writeFile(o.idleProfile, JSON.stringify(await stopProfile()));
      o.log(`${g.label}: wrote its CPU profile at rest to ${o.idleProfile}`);
    }
    const minutes = (Date.now() - t0) / 60_000;
    peakOf('rest');
    const idleEvents = (await audit.readSince(offset, c.who)).filter((e) => !isLease(e));
    const idleRequests = idleEvents.length;
    if (idleRequests > 0) o.log(`${g.label}: at rest, ${idleRequests} requests: ${byWho(idleEvents)}`);

    offset = await audit.offset();
    startMs = Date.now();
    cpu = cpuMeter(groups);
    const targets = new Map(g.v2.map((b) => [b.pkg, b.name]));
    const upgraded = stampFirst(
      watch.extensions,
      (x) => x.metadata.name,
      (x) => isInstalledAs(x, targets.get(x.metadata.name ?? '') ?? ''),
    );
    let upgradeMs: number;
    try {
      const u0 = performance.now();
      await stack.kube.client.patch({ ...CATALOG, name: g.catalog }, { spec: { source: { image: { ref: g.updateRef } } } }, 'merge');
      await upgraded.all([...targets.keys()], o.timeoutMs, `${n} extensions upgraded`);
      upgradeMs = Math.max(...[...upgraded.times.values()]) - u0;
    } finally {
      upgraded.stop();
    }
    const upgradeRequests = await phase(startMs, offset);
    const upgradeCpu = cpu();
    peakOf(`the upgrade of ${n}`);
    o.log(
      `${g.label}: ${n} upgraded in ${Math.round(upgradeMs)} ms, ${upgradeRequests.events.length} requests until quiet: ${byWho(upgradeRequests.events)}`,
    );

    await c.settle();
    const uninstall = await timeUninstall(stack, watch, objects, new Set(targets.keys()), { timeoutMs: o.timeoutMs, audit, who: c.who });
    peakOf(`the uninstall of ${n}`);
    o.log(
      `${g.label}: ${n} (${uninstall.objects} objects) gone in ${Math.round(uninstall.doneMs)} ms, ${uninstall.requests.length} requests: ${describeRequests(uninstall.requests)}`,
    );

    const figures: SideFigures = {
      label: g.label,
      oneInstallMs: median(one.map((r) => r.install.allMs)),
      oneUninstallMs: median(one.map((r) => r.doneMs)),
      manyInstallMs: install.allMs,
      manyUpgradeMs: upgradeMs,
      manyUninstallMs: uninstall.doneMs,
      installRequests: installRequests.events.length / n,
      upgradeRequests: upgradeRequests.events.length / n,
      uninstallRequests: uninstall.requests.length / n,
      installCpu: { controller: controllerCpu(installCpu), apiserver: apiserver(installCpu) },
      upgradeCpu: { controller: controllerCpu(upgradeCpu), apiserver: apiserver(upgradeCpu) },
      rss: settledRss,
      peakRss: rss.max,
      idle: {
        controllerCpu: controllerCpu(idleCpuS) / minutes,
        apiserverCpu: apiserver(idleCpuS) / minutes,
        requests: idleRequests / minutes,
      },
    };
    return {
      figures,
      raw: {
        one: one.map((r) => ({ installMs: Math.round(r.install.allMs), doneMs: Math.round(r.doneMs), objects: r.objects })),
        install: { allMs: Math.round(install.allMs), cpu: installCpu, requests: installRequests.events.length, others: installRequests.others },
        idle: { cpu: idleCpuS, minutes, requests: idleRequests },
        upgrade: { allMs: Math.round(upgradeMs), cpu: upgradeCpu, requests: upgradeRequests.events.length, others: upgradeRequests.others },
        uninstall: { doneMs: Math.round(uninstall.doneMs), objects: uninstall.objects, requests: uninstall.requests.length },
        peaks,
      },
    };
  } finally {
    rss.stop();
  }
}
