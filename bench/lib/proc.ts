/**
 * Memory of a process as Linux reports it: current RSS (`VmRSS`) and its high-water mark
 * (`VmHWM`) from /proc/<pid>/status, resetting the high-water mark through
 * /proc/<pid>/clear_refs, and a sampler that polls RSS every few milliseconds; also its I/O
 * and CPU time counters.
 *
 * The kernel's high-water mark catches peaks a sampler can miss (an allocation burst between
 * two samples); the sampler shows when the peak happened. Both are reported.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';

/** Memory figures of one process, in bytes. */
export interface ProcMemory {
  rss: number;
  hwm: number;
  /** Anonymous memory (heaps, malloc arenas, JIT code): what the process itself allocated. */
  anon: number;
  /** File-backed pages, mostly the node binary's code; shared and reclaimable. */
  file: number;
}

/** Reads VmRSS and VmHWM of `pid` (default: this process); undefined when /proc is unavailable. */
export function procMemory(pid: number | 'self' = 'self'): ProcMemory | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? Number.NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM'), anon: kb('RssAnon'), file: kb('RssFile') };
}

/** Clock ticks per second of /proc/PID/stat times (USER_HZ: 100 on every Linux architecture Node runs on). */
const USER_HZ = 100;

/**
 * CPU time `pid` has used so far, user + system, in seconds (`utime` + `stime` of
 * /proc/PID/stat, 10 ms resolution); undefined when unreadable.
 */
export function procCpuSeconds(pid: number): number | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command name (which may contain spaces), counted from field 3 (state).
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
}

/** Processes whose command line (arguments joined by spaces) satisfies `match`, e.g. the control plane's servers. */
export function findProcesses(match: (cmdline: string) => boolean): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
    } catch {
      continue;
    }
    if (match(cmdline)) pids.push(Number(entry));
  }
  return pids;
}

/**
 * Bytes `pid` has read and written through system calls so far (`rchar`/`wchar` of
 * /proc/PID/io: files and sockets alike, page cache hits included); undefined when unreadable.
 */
export function procIo(pid: number): { read: number; written: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/io`, 'utf8');
  } catch {
    return undefined;
  }
  const field = (name: string): number => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  return { read: field('rchar'), written: field('wchar') };
}

/**
 * Resets the high-water mark of `pid` to its current RSS (writes `5` to clear_refs, Linux 4.0+).
 * Returns false when that is not possible; VmHWM then still holds older peaks.
 */
export function resetPeak(pid: number | 'self' = 'self'): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * Polls a process's RSS on a timer and keeps the maximum and every sample; with `atPeak`, what it
 * returns when a phase reaches a new maximum (e.g. the process's mappings then).
 */
export class RssSampler<D = undefined> {
  readonly #read: () => number | undefined;
  readonly #timer: NodeJS.Timeout;
  readonly #atPeak: (() => D) | undefined;
  #max = 0;
  #phaseMax = 0;
  #phaseDetail: D | undefined;
  #samples = 0;

  /** Starts sampling `pid` (default: this process, via process.memoryUsage) every `intervalMs`. */
  constructor(intervalMs: number, pid?: number, atPeak?: () => D) {
    this.#read = pid === undefined ? () => process.memoryUsage().rss : () => procMemory(pid)?.rss;
    this.#atPeak = atPeak;
    this.#timer = setInterval(() => this.sample(), intervalMs);
    this.sample();
  }

  /** Takes one sample now (also called by the timer). */
  sample(): void {
    const v = this.#read();
    if (v === undefined || Number.isNaN(v)) return;
    this.#samples++;
    if (v > this.#max) this.#max = v;
    if (v > this.#phaseMax) {
      this.#phaseMax = v;
      if (this.#atPeak !== undefined) this.#phaseDetail = this.#atPeak();
    }
  }

  /** As {@link takePhaseMax}, with what `atPeak` returned at the phase's maximum. */
  takePhase(): { max: number; detail: D | undefined } {
    this.sample();
    const taken = { max: this.#phaseMax, detail: this.#phaseDetail };
    this.#phaseMax = 0;
    this.#phaseDetail = undefined;
    return taken;
  }

  /** Highest RSS since the previous call (or the start), then starts a new phase. */
  takePhaseMax(): number {
    return this.takePhase().max;
  }

  /** Highest RSS seen so far, in bytes. */
  get max(): number {
    return this.#max;
  }

  /** Number of samples taken. */
  get count(): number {
    return this.#samples;
  }

  /** Takes a last sample and stops the timer; returns the maximum. */
  stop(): number {
    this.sample();
    clearInterval(this.#timer);
    return this.#max;
  }
}

/**
 * Polls another process's RSS and anonymous memory until it exits or `stop` is called, keeping
 * the maxima (bytes). Used for the ingest child process, whose memory is not in our own RSS.
 */
export class ProcessMemorySampler {
  readonly #pid: number;
  readonly #timer: NodeJS.Timeout;
  #rss = 0;
  #anon = 0;

  constructor(pid: number, intervalMs: number) {
    this.#pid = pid;
    this.#timer = setInterval(() => this.#sample(), intervalMs);
    this.#sample();
  }

  #sample(): void {
    const m = procMemory(this.#pid);
    if (m === undefined) return;
    if (m.rss > this.#rss) this.#rss = m.rss;
    if (m.anon > this.#anon) this.#anon = m.anon;
  }

  /** Stops sampling and returns the peaks. */
  stop(): { rss: number; anon: number } {
    clearInterval(this.#timer);
    return { rss: this.#rss, anon: this.#anon };
  }
}

/** Resident memory of a process by kind of mapping (/proc/PID/smaps), in bytes. */
export interface MappingRss {
  /** Pages of mapped files (the node binary, shared libraries). */
  file: number;
  /** The brk heap: glibc's main malloc arena. */
  brk: number;
  /** Anonymous mappings by their size: V8's heap pages and glibc's large chunks are small to middling, thread arenas 64 MiB reservations. */
  anonBySize: Record<'upTo1M' | 'upTo16M' | 'upTo64M' | 'over64M', number>;
  /** The largest resident anonymous mappings: size and resident bytes. */
  largest: { size: number; rss: number }[];
}

/** Reads /proc/PID/smaps and adds up resident memory by kind of mapping; undefined when unreadable. */
export function mappingRss(pid: number): MappingRss | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return undefined;
  }
  const out: MappingRss = { file: 0, brk: 0, anonBySize: { upTo1M: 0, upTo16M: 0, upTo64M: 0, over64M: 0 }, largest: [] };
  const anon: { size: number; rss: number }[] = [];
  let size = 0;
  let name = '';
  for (const line of text.split('\n')) {
    const range = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (range !== null) {
      size = Number.parseInt(range[2] ?? '0', 16) - Number.parseInt(range[1] ?? '0', 16);
      name = range[3] ?? '';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB$/.exec(line);
    if (rss === null) continue;
    const bytes = Number(rss[1]) * 1024;
    if (name.startsWith('/')) out.file += bytes;
    else if (name === '[heap]') out.brk += bytes;
    else if (name === '' && bytes > 0) {
      anon.push({ size, rss: bytes });
      const bucket = size <= 1 << 20 ? 'upTo1M' : size <= 16 << 20 ? 'upTo16M' : size <= 64 << 20 ? 'upTo64M' : 'over64M';
      out.anonBySize[bucket] += bytes;
    }
  }
  out.largest = anon.sort((a, b) => b.rss - a.rss).slice(0, 6);
  return out;
}
