/**
 * A vitest reporter, next to the default one (vitest.config.ts), that prints where the run's time
 * went when vitest closes, after the global setups' teardowns (so the background builds they
 * wait for are complete): the setup's phases and the 15 slowest test files (run-timings.ts).
 */
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { relative } from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import { formatSummary, parsePhases, timingsFile, type FileTiming } from './run-timings.ts';

export class TimingReporter implements Reporter {
  private origin = Date.now();
  private readonly started = new Map<string, number>();
  private readonly files: FileTiming[] = [];

  onInit(vitest: Vitest): void {
    vitest.onClose(async () => {
      // The global setup runs in this process (vitest's main one).
      const file = timingsFile(tmpdir(), process.pid);
      const phases = parsePhases(await readFile(file, 'utf8').catch(() => '[]'));
      await rm(file, { force: true });
      if (phases.length === 0 && this.files.length === 0) return;
      vitest.logger.log(['', ...formatSummary(this.origin, phases, this.files)].join('\n'));
    });
  }

  onTestRunStart(): void {
    this.origin = Date.now();
  }

  onTestModuleQueued(module: TestModule): void {
    this.started.set(module.id, Date.now());
  }

  onTestModuleEnd(module: TestModule): void {
    const path = relative(module.project.config.root, module.moduleId);
    const name = module.project.name === 'integration' ? path : `${module.project.name}: ${path}`;
    this.files.push({ name, start: this.started.get(module.id) ?? this.origin, end: Date.now() });
  }
}
