/**
 * Benchmark child: one catalog ingest in a fresh process. Modes:
 * - `streamed`: as catalogd's reconciler performs it (`storeCatalogImage`): manifest and
 *   config are read, the layer streams from the registry into the ingest process
 *   (`createProcessIngest().layers`), which decodes and stores it; the "pull" part is the
 *   metadata step only. The run fails if the image was not streamed.
 * - `unpacked`: catalogd's fallback: the image is pulled into the digest-keyed unpack cache,
 *   then the directory is stored with `createProcessIngest()`.
 * - `inprocess`: like `unpacked`, with `ingestInProcess` (the CLI's ingest), for comparison.
 * With an ingest process, that process is sampled too (its RSS and its anonymous memory: the
 * node binary's file-backed pages are shared with this process).
 *
 * Reports wall times of both parts, peak RSS above the settled baseline (sampled every 2 ms
 * and from the kernel's VmHWM, reset at the baseline), and event-loop delay per part.
 *
 * Usage (by bench/benchmarks/ingest.ts): node --expose-gc ingest.ts MODE REF REGISTRY_HOST WORKDIR
 */
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pino from 'pino';
import { CATALOG_CONFIGS_LABEL, createDiskImageCache, createImageClient } from '../../pkg/shared/image/index.ts';
import { storeCatalogImage } from '../../pkg/catalogd/clustercatalog/catalog-content.ts';
import { LocalDirStore, createProcessIngest, ingestInProcess } from '../../pkg/catalogd/storage/index.ts';
import { runChild, toParent } from '../lib/child.ts';
import { ProcessMemorySampler, RssSampler, procMemory, resetPeak } from '../lib/proc.ts';
// Not from ../lib/http-load.ts: an ES import of node:http loads undici (pkg/shared/nodehttp), ~14 MB of RSS.
import { setTimeout as sleep } from 'node:timers/promises';

const SAMPLE_MS = 2;
const LOOP_RESOLUTION_MS = 2;

/**
 * Event-loop delay figures of one phase, ms. The histogram records each timer interval whole
 * (an idle loop reports the resolution itself), so the resolution is subtracted.
 */
function loopDelay(h: ReturnType<typeof monitorEventLoopDelay>): { p50: number; p99: number; max: number } {
  const delay = (ns: number): number => Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS);
  return { p50: delay(h.percentile(50)), p99: delay(h.percentile(99)), max: delay(h.max) };
}

runChild(async () => {
  const [mode, ref, registryHost, workDir] = process.argv.slice(2);
  if (mode === undefined || ref === undefined || registryHost === undefined || workDir === undefined)
    throw new Error('usage: MODE REF REGISTRY_HOST WORKDIR');
  const logger = pino({ level: 'silent' });
  const images = createImageClient({ insecureRegistries: [registryHost], logger });
  const unpackCache = createDiskImageCache(join(workDir, 'unpack'));
  let ingestProcess: ProcessMemorySampler | undefined;
  const ingest =
    mode === 'inprocess' ? ingestInProcess : createProcessIngest({ onSpawn: (pid) => (ingestProcess = new ProcessMemorySampler(pid, SAMPLE_MS)) });
  const store = new LocalDirStore({ root: join(workDir, 'store'), ingest, logger });
  await store.open();
  // ingestInProcess loads the decoder on first use; here it belongs to the baseline.
  if (mode === 'inprocess') await import('../../pkg/catalogd/storage/ingest-directory.ts');

  // Baseline: everything loaded, garbage collected, nothing running.
  for (let i = 0; i < 3; i++) {
    globalThis.gc?.();
    await sleep(50);
  }
  const baseline = process.memoryUsage().rss;
  const peakReset = resetPeak('self');
  const hwmAtBaseline = procMemory('self')?.hwm ?? Number.NaN;
  const sampler = new RssSampler(SAMPLE_MS);
  const eld = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  eld.enable();

  const t0 = performance.now();
  let t1: number;
  let unpackDelay: ReturnType<typeof loopDelay>;
  let unpackPeak: number;
  const endFirstPart = (): void => {
    t1 = performance.now();
    unpackDelay = loopDelay(eld);
    unpackPeak = sampler.takePhaseMax();
    eld.reset();
  };
  let version;
  if (mode === 'streamed') {
    // catalogd's own path, with the metadata step timed as the first part.
    const timed = {
      ...images,
      openLayers: async (...args: Parameters<typeof images.openLayers>) => {
        const opened = await images.openLayers(...args);
        endFirstPart();
        return opened;
      },
    };
    const stored = await storeCatalogImage(
      { images: timed, unpackCache, store },
      { name: 'bench', ref, unpackedAt: (at) => at.toISOString(), log: logger },
    );
    if (!stored.streamed) throw new Error('the catalog image was not streamed into the ingest');
    version = stored.version;
  } else {
    store.prepareIngest(); // as catalogd's reconciler does
    const pulled = await images.pull(ref, { owner: 'bench', cache: unpackCache, labelPathFilter: CATALOG_CONFIGS_LABEL });
    endFirstPart();
    version = await store.store(
      'bench',
      { digest: pulled.digest, ref: pulled.digestRef, unpackedAt: pulled.unpackedAt.toISOString() },
      { fbcDir: pulled.dir },
    );
  }
  const t2 = performance.now();
  eld.disable();
  const ingestPeak = sampler.takePhaseMax();
  const child = ingestProcess?.stop();
  const sampledPeak = sampler.stop();
  const hwm = procMemory('self')?.hwm ?? Number.NaN;
  const index = await version.index();

  toParent({
    type: 'result',
    mode,
    unpackMs: t1! - t0,
    ingestMs: t2 - t1!,
    totalMs: t2 - t0,
    baselineRss: baseline,
    sampledPeakRss: sampledPeak,
    unpackPeakRss: unpackPeak!,
    ingestPeakRss: ingestPeak,
    hwm,
    hwmAtBaseline,
    peakReset,
    childPeakRss: child?.rss ?? 0,
    childPeakAnon: child?.anon ?? 0,
    samples: sampler.count,
    unpackLoopDelay: unpackDelay!,
    ingestLoopDelay: loopDelay(eld),
    stored: { jsonl: version.sizes.jsonl, gzip: version.sizes.gzip, blobs: index.size },
  });
  await store.close();
  images.close();
});
