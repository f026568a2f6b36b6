import { describe, expect, it } from 'vitest';
import { laneSummary, lineSplitter, type RunResult } from './lane-output.ts';

describe('lineSplitter', () => {
  it('hands complete lines across chunk boundaries, without carriage returns, and the rest at the end', () => {
    const lines: string[] = [];
    const s = lineSplitter((l) => lines.push(l));
    s.push('a\nb');
    s.push('c\r\n\nd');
    expect(lines).toEqual(['a', 'bc', '']);
    s.end();
    expect(lines).toEqual(['a', 'bc', '', 'd']);
    s.end();
    expect(lines).toHaveLength(4);
  });
});

describe('laneSummary', () => {
  const run = (name: string, code: number, tail: string[] = []): RunResult => ({ name, args: ['--project', name], code, seconds: 125.4, tail });

  it('prints the failed runs last lines again, then a line per run', () => {
    const lines = laneSummary([run('main', 0, ['ok']), run('on-node', 1, ['FAIL x', 'Test Files 1 failed'])]);
    expect(lines.join('\n')).not.toContain('ok');
    expect(lines).toContain('FAIL x');
    expect(lines.indexOf('FAIL x')).toBeLessThan(lines.indexOf('Lanes:'));
    expect(lines.slice(-2)).toEqual([
      '  main     passed    2:05  vitest run --project main',
      '  on-node  FAILED (exit 1)    2:05  vitest run --project on-node',
    ]);
  });

  it('prints only the lines per run when every run passed', () => {
    expect(laneSummary([run('main', 0, ['x'])])).toEqual(['', 'Lanes:', '  main     passed    2:05  vitest run --project main']);
  });
});
