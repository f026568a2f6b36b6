import { describe, expect, it } from 'vitest';
import { formatSummary, parsePhases, phaseRecorder, staleTimingsFiles, SUMMARY_LINES, type FileTiming, type Phase } from './run-timings.ts';

describe('phaseRecorder', () => {
  it('saves each phase when it starts and ends, with the failure of one that throws', async () => {
    const saved: string[] = [];
    let clock = 1000;
    const phases = phaseRecorder(
      (list) => saved.push(JSON.stringify(list)),
      () => (clock += 1000),
    );
    await expect(phases.time('builds', false, () => Promise.resolve(7))).resolves.toBe(7);
    await expect(phases.time('helm', true, () => Promise.reject(new Error('go build failed\nits output')))).rejects.toThrow('go build failed');
    expect(saved.map((s) => parsePhases(s))).toEqual([
      [{ name: 'builds', background: false, start: 2000 }],
      [{ name: 'builds', background: false, start: 2000, end: 3000 }],
      [
        { name: 'builds', background: false, start: 2000, end: 3000 },
        { name: 'helm', background: true, start: 4000 },
      ],
      [
        { name: 'builds', background: false, start: 2000, end: 3000 },
        { name: 'helm', background: true, start: 4000, end: 5000, error: 'go build failed' },
      ],
    ]);
  });
});

describe('staleTimingsFiles', () => {
  it('names the timing files of processes that are gone, nothing else', () => {
    const names = [
      'olmv1-test-phases-10.json',
      'olmv1-test-phases-11.json',
      'olmv1-test-phases-x.json',
      'other-12.json',
      'olmv1-test-phases-13.json.tmp',
    ];
    expect(staleTimingsFiles(names, (pid) => pid === 11)).toEqual(['olmv1-test-phases-10.json']);
  });
});

describe('parsePhases', () => {
  it('reads nothing from text that is not a list of phases', () => {
    expect(parsePhases('')).toEqual([]);
    expect(parsePhases('{"name":"x"}')).toEqual([]);
    expect(parsePhases('[{"name":"x"},{"name":"y","background":true,"start":1}]')).toEqual([{ name: 'y', background: true, start: 1 }]);
  });
});

describe('formatSummary', () => {
  const origin = 1_000_000;
  const phases: Phase[] = [
    { name: 'control plane builds', background: false, start: origin, end: origin + 4_000 },
    { name: 'environment start', background: false, start: origin + 4_000, end: origin + 11_000 },
    { name: 'node binaries', background: true, start: origin + 11_000, end: origin + 302_000 },
    { name: 'helm', background: true, start: origin + 302_000, end: origin + 303_000, error: 'exit status 1' },
    { name: 'cosign', background: true, start: origin + 303_000 },
  ];

  it('gives each phase its start and end offsets and the slowest files with their starts', () => {
    const files: FileTiming[] = [
      { name: 'test/integration/kube-client.test.ts', start: origin + 12_000, end: origin + 16_000 },
      { name: 'test/integration/helm-chart-template.test.ts', start: origin + 16_000, end: origin + 320_500 },
    ];
    expect(formatSummary(origin, phases, files)).toEqual([
      'Timings (offsets from the start of this vitest run):',
      '  setup      control plane builds  +0:00 to +0:04       4.0 s',
      '  setup      environment start     +0:04 to +0:11       7.0 s',
      '  background node binaries         +0:11 to +5:02       291 s',
      '  background helm                  +5:02 to +5:03       1.0 s  FAILED: exit status 1',
      '  background cosign                +5:03 to unfinished',
      'Slowest test files (start, wall time from a worker taking the file to its end):',
      '    +0:16   305 s  test/integration/helm-chart-template.test.ts',
      '    +0:12   4.0 s  test/integration/kube-client.test.ts',
    ]);
  });

  it(`keeps to ${SUMMARY_LINES} lines, listing at most 15 files`, () => {
    const files = Array.from({ length: 40 }, (_, i) => ({ name: `f${i}`, start: origin, end: origin + i * 1000 }));
    const lines = formatSummary(origin, phases, files);
    expect(lines.length).toBeLessThanOrEqual(SUMMARY_LINES);
    expect(lines.filter((l) => /\bf\d+$/.test(l))).toHaveLength(15);
    expect(lines.at(-1)).toMatch(/ f25$/);
  });
});
