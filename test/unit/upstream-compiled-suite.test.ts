// How test/e2e/upstream-compiled-suite.test.ts reads godog's cucumber JSON and what its summary says.
import { describe, expect, it } from 'vitest';
import { formatSummary, parseCucumberReport } from '../support/upstream-compiled-suite.ts';

const step = (name: string, status: string, error?: string) => ({
  keyword: 'And ',
  name,
  result: { status, ...(error === undefined ? {} : { error_message: error }) },
});

const REPORT = JSON.stringify([
  {
    uri: '/mod/test/e2e/features/install.feature',
    elements: [
      {
        name: 'Install latest',
        line: 11,
        type: 'scenario',
        tags: [],
        steps: [step('OLM is available', 'passed'), step('bundle is installed', 'passed')],
      },
      {
        name: 'Install with webhooks',
        line: 222,
        type: 'scenario',
        tags: [{ name: '@WebhookProviderCertManager' }],
        steps: [
          step('OLM is available', 'passed'),
          step('ClusterExtension is available', 'failed', 'Condition never satisfied\nline two'),
          step('x', 'skipped'),
        ],
      },
      { name: 'Boxcutter only', line: 349, type: 'scenario', tags: [{ name: '@BoxcutterRuntime' }], steps: [step('OLM is available', 'skipped')] },
      { name: 'Unknown step', line: 400, type: 'scenario', tags: [], steps: [step('OLM is available', 'passed'), step('no such step', 'undefined')] },
    ],
  },
  { uri: 'features/metrics.feature', elements: [{ name: 'component exposes metrics', line: 14, type: 'scenario', steps: [step('a', 'passed')] }] },
]);

describe('parseCucumberReport', () => {
  it('names each scenario by its feature file, failed on a failed or undefined step, skipped when no step ran', () => {
    expect(parseCucumberReport(REPORT).map((r) => [r.name, r.line, r.status, r.failedStep ?? ''])).toEqual([
      ['install: Install latest', 11, 'passed', ''],
      ['install: Install with webhooks', 222, 'failed', 'And ClusterExtension is available'],
      ['install: Boxcutter only', 349, 'skipped', ''],
      ['install: Unknown step', 400, 'failed', 'And no such step'],
      ['metrics: component exposes metrics', 14, 'passed', ''],
    ]);
    expect(parseCucumberReport(REPORT)[1]?.error).toBe('Condition never satisfied\nline two');
  });

  it('refuses what is not a report', () => {
    expect(() => parseCucumberReport('{}')).toThrow('not a cucumber JSON report');
  });
});

describe('formatSummary', () => {
  it('counts, then a line per scenario; a failure with its step, its error and why it is expected', () => {
    const text = formatSummary('helm', parseCucumberReport(REPORT), (n) => (n === 'install: Install with webhooks' ? 'known' : undefined));
    expect(text.split('\n').slice(0, 5)).toEqual([
      'helm: 2 passed, 2 failed, 1 skipped (5 scenarios)',
      '  passed  install: Install latest (line 11)',
      '  failed  install: Install with webhooks (line 222) [known]',
      '          step: And ClusterExtension is available',
      '          Condition never satisfied',
    ]);
  });
});
