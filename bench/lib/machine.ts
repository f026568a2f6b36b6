/**
 * What the figures were measured on: Node version, CPU, cores, memory and load average.
 * The load average matters on a shared 2-core machine: a 1-minute load near or above the core
 * count means other work competed with the benchmark and latencies are pessimistic.
 */
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';

/** Machine description printed above the results and stored in the JSON output. */
export interface MachineInfo {
  node: string;
  platform: string;
  cpuModel: string;
  cores: number;
  totalMemoryMiB: number;
  /** 1, 5 and 15 minute load averages when the run started. */
  loadAverageAtStart: number[];
}

/** Describes this machine now. */
export function machineInfo(): MachineInfo {
  return {
    node: process.version,
    platform: `${process.platform}/${process.arch}`,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    cores: availableParallelism(),
    totalMemoryMiB: Math.round(totalmem() / (1024 * 1024)),
    loadAverageAtStart: loadAverage(),
  };
}

/** The 1, 5 and 15 minute load averages, two decimals. */
export function loadAverage(): number[] {
  return loadavg().map((l) => Math.round(l * 100) / 100);
}
