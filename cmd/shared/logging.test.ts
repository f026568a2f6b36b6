import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { TerminalError } from '../../pkg/shared/errors/index.ts';
import { type LogOptions, componentLogger, logFlagsHelp, logOptions } from './logging.ts';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url);

/** A destination collecting the lines a logger writes. */
function sink(): { lines: string[]; stream: { write(s: string): void } } {
  const lines: string[] = [];
  return { lines, stream: { write: (s: string) => lines.push(...s.split('\n').filter((l) => l !== '')) } };
}

describe('logOptions', () => {
  it.each([
    [{}, { logLevel: 'info', logFormat: 'json', logTimeEncoding: undefined }],
    [
      { 'log-format': 'text', 'log-level': 'debug' },
      { logLevel: 'debug', logFormat: 'text', logTimeEncoding: undefined },
    ],
    [{ 'zap-encoder': 'console' }, { logLevel: 'info', logFormat: 'text', logTimeEncoding: undefined }],
    [
      { 'zap-encoder': 'json', 'log-format': 'json' },
      { logLevel: 'info', logFormat: 'json', logTimeEncoding: undefined },
    ],
    [{ 'zap-log-level': 'error' }, { logLevel: 'error', logFormat: 'json', logTimeEncoding: undefined }],
    [{ 'zap-log-level': 'panic' }, { logLevel: 'fatal', logFormat: 'json', logTimeEncoding: undefined }],
    [{ 'zap-log-level': '1' }, { logLevel: 'debug', logFormat: 'json', logTimeEncoding: undefined }],
    [{ 'zap-log-level': '5' }, { logLevel: 'trace', logFormat: 'json', logTimeEncoding: undefined }],
    [{ 'zap-time-encoding': 'epoch' }, { logLevel: 'info', logFormat: 'json', logTimeEncoding: 'epoch' }],
    // klog's --v: 0-3 info, 4 debug, 5+ trace, below 0 warn.
    [{ v: '2' }, { logLevel: 'info', logFormat: 'json', logTimeEncoding: undefined }],
    [{ v: '4' }, { logLevel: 'debug', logFormat: 'json', logTimeEncoding: undefined }],
    [{ v: '6' }, { logLevel: 'trace', logFormat: 'json', logTimeEncoding: undefined }],
    [{ v: '-1' }, { logLevel: 'warn', logFormat: 'json', logTimeEncoding: undefined }],
    [
      { v: '1', 'zap-log-level': 'info' },
      { logLevel: 'info', logFormat: 'json', logTimeEncoding: undefined },
    ],
  ] satisfies [Parameters<typeof logOptions>[0], LogOptions][])('%j', (values, want) => {
    expect(logOptions(values)).toEqual(want);
  });

  it.each([
    [{ 'log-format': 'xml' }, 'invalid --log-format "xml" (want json or text)'],
    [{ 'zap-encoder': 'text' }, 'invalid --zap-encoder "text" (want json or console)'],
    [{ 'log-format': 'json', 'zap-encoder': 'console' }, '--log-format and --zap-encoder disagree'],
    [{ 'log-level': 'verbose' }, 'invalid --log-level "verbose" (want trace, debug, info, warn, error)'],
    [{ 'log-level': 'info', 'zap-log-level': 'debug' }, '--log-level and --zap-log-level disagree'],
    [{ v: '4', 'zap-log-level': 'info' }, '--zap-log-level and --v disagree'],
    [{ v: 'debug' }, 'invalid --v "debug" (want klog\'s verbosity, a whole number)'],
    [{ 'zap-time-encoding': 'unix' }, 'invalid --zap-time-encoding "unix" (want epoch, millis, nano, iso8601, rfc3339, rfc3339nano)'],
  ])('rejects %j', (values, message) => {
    expect(() => logOptions(values)).toThrow(message);
  });

  it('help lists every flag', () => {
    const help = logFlagsHelp(36);
    for (const flag of ['--log-level', '--log-format', '--zap-log-level', '--zap-encoder', '--zap-time-encoding', '--v N'])
      expect(help).toContain(flag);
  });
});

describe('componentLogger', () => {
  it('json: string level, ISO-8601 ts, component, msg', () => {
    const { lines, stream } = sink();
    componentLogger('catalogd', { logLevel: 'info', logFormat: 'json' }, stream).info({ catalog: 'c' }, 'unpack failed');
    expect(lines).toHaveLength(1);
    const record = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    expect(record).toEqual({
      level: 'info',
      ts: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      component: 'catalogd',
      catalog: 'c',
      msg: 'unpack failed',
    });
  });

  it.each([
    ['epoch', /^"ts":\d+(\.\d+)?$/],
    ['millis', /^"ts":\d{13}$/],
    ['nano', /^"ts":\d{19}$/],
    ['rfc3339', /^"ts":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"$/],
    ['rfc3339nano', /^"ts":"[^"]+\.\d{3}Z"$/],
  ] as const)('json with --zap-time-encoding %s', (encoding, want) => {
    const { lines, stream } = sink();
    componentLogger('c', { logLevel: 'info', logFormat: 'json', logTimeEncoding: encoding }, stream).info('x');
    expect(/"ts":[^,]+/.exec(lines[0] ?? '')?.[0]).toMatch(want);
  });

  it('text: one readable line per record, errors without stacks on the same line', () => {
    const { lines, stream } = sink();
    const log = componentLogger('operator-controller', { logLevel: 'debug', logFormat: 'text' }, stream);
    log.debug({ controller: 'clusterextension' }, 'starting workers');
    log.error({ err: new TerminalError('no bundles found', { cause: new Error('inner') }) }, 'Reconciler error');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\] DEBUG: starting workers \{"component":"operator-controller","controller":"clusterextension"\}$/,
    );
    expect(lines[1]).toMatch(/^\[[^\]]+\] ERROR: Reconciler error \{.*"message":"no bundles found".*"cause":\{"type":"Error","message":"inner"\}/);
    expect(lines[1]).not.toContain('stack');
  });

  it('text: a programming error keeps its stack, still on one line', () => {
    const { lines, stream } = sink();
    componentLogger('c', { logLevel: 'info', logFormat: 'text' }, stream).error({ err: new TypeError('x is undefined') }, 'Reconciler error');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('"stack":"TypeError: x is undefined\\n    at ');
  });

  it('honours the level', () => {
    const { lines, stream } = sink();
    const log = componentLogger('c', { logLevel: 'warn', logFormat: 'text' }, stream);
    log.info('hidden');
    log.warn('shown');
    expect(lines).toEqual([expect.stringMatching(/ WARN: shown /)]);
  });
});

describe('a component started with --log-format text', () => {
  it('writes readable lines', async () => {
    // A kubeconfig that does not exist: the component logs why it cannot start and exits 1.
    const err = await run(process.execPath, ['cmd/catalogd/main.ts', '--log-format', 'text', '--kubeconfig', '/nonexistent/kubeconfig'], {
      cwd: root,
    }).then(
      () => undefined,
      (e: unknown) => e as { code: number; stdout: string },
    );
    expect(err?.code).toBe(1);
    const lines = (err?.stdout ?? '').split('\n').filter((l) => l !== '');
    expect(lines).toEqual([
      expect.stringMatching(
        /^\[\d{4}-\d\d-\d\dT[\d:.]+Z\] INFO: catalogd feature gate status \{"component":"catalogd","APIV1MetasHandler":true,"GraphQLCatalogQueries":false\}$/,
      ),
      expect.stringMatching(
        /^\[\d{4}-\d\d-\d\dT[\d:.]+Z\] FATAL: catalogd failed \{"component":"catalogd","err":\{"type":"Error","message":"unable to load kubeconfig/,
      ),
    ]);
    expect(lines[1]).not.toContain('stack');
  });
});
