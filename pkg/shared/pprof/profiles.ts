/**
 * Profiles of this Node process from the V8 inspector (node:inspector), in Chrome DevTools'
 * formats: a CPU profile (`.cpuprofile`: Profiler.Profile, JSON) and a sampling heap profile
 * (`.heapprofile`: HeapProfiler.SamplingHeapProfile, JSON). They are not Go's pprof protobuf
 * (decision 0117).
 */
import { Session } from 'node:inspector/promises';

/** One inspector session of this process, for profiles one at a time per kind. */
export class Profiler {
  readonly #session = new Session();
  #cpuBusy = false;
  #sampling = false;

  constructor() {
    this.#session.connect();
  }

  /**
   * Starts sampling heap allocations (every `intervalBytes` on average; V8's default 32 KiB), so
   * that {@link heapProfile} covers what was allocated and is still live since then.
   */
  async startHeapSampling(intervalBytes = 32 * 1024): Promise<void> {
    if (this.#sampling) return;
    await this.#session.post('HeapProfiler.enable');
    await this.#session.post('HeapProfiler.startSampling', { samplingInterval: intervalBytes });
    this.#sampling = true;
  }

  /** The sampling heap profile so far (live sampled allocations with their stacks). */
  async heapProfile(): Promise<unknown> {
    await this.startHeapSampling();
    const { profile } = await this.#session.post('HeapProfiler.getSamplingProfile');
    return profile;
  }

  /**
   * Samples the CPU for `ms` (or until `signal` aborts) and resolves the profile; 'busy' when a
   * CPU profile is already being taken (V8 profiles one at a time per session, as Go does).
   */
  async cpuProfile(ms: number, signal?: AbortSignal): Promise<unknown> {
    if (this.#cpuBusy) return 'busy';
    this.#cpuBusy = true;
    try {
      await this.#session.post('Profiler.enable');
      await this.#session.post('Profiler.start');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          resolve();
        }
        signal?.addEventListener('abort', done, { once: true });
      });
      const { profile } = await this.#session.post('Profiler.stop');
      await this.#session.post('Profiler.disable');
      return profile;
    } finally {
      this.#cpuBusy = false;
    }
  }

  /** Stops sampling and disconnects the session. */
  async close(): Promise<void> {
    if (this.#sampling) await this.#session.post('HeapProfiler.stopSampling').catch(() => undefined);
    this.#sampling = false;
    this.#session.disconnect();
  }
}
