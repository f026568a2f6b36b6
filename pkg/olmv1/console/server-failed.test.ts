import type { IncomingMessage, ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { failed } from './server.ts';

/** A logger whose lines are kept, a request and a response that records its answer. */
function harness() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const answer = { status: 0, body: '' };
  const res = {
    headersSent: false,
    set statusCode(s: number) {
      answer.status = s;
    },
    setHeader: () => undefined,
    end: (b: string) => void (answer.body = b),
  } as unknown as ServerResponse;
  return { log: pino({ level: 'info' }, sink), lines, answer, res, req: { url: '/api/extensions/x' } as IncomingMessage };
}

describe('a request that failed (issue 71)', () => {
  it("answers an API server's refusal with its status and words, logged without a stack", () => {
    const h = harness();
    failed(h.log, h.req, h.res, Object.assign(new Error('clusterextensions "x" not found'), { status: 404 }));
    expect(h.answer).toEqual({ status: 404, body: JSON.stringify({ error: 'clusterextensions "x" not found' }) });
    expect(h.lines.map((l) => [l.level, l.msg, 'err' in l])).toEqual([[30, 'console request refused', false]]);
  });

  it('finds the status of a refusal wrapped with context (a release-record read), and answers and logs it as a refusal', () => {
    const h = harness();
    const refusal = Object.assign(new Error('secrets is forbidden: User "v" cannot list resource "secrets"'), { status: 403 });
    failed(h.log, h.req, h.res, new Error('listing release records in namespace "olmv1-system": secrets is forbidden', { cause: refusal }));
    expect(h.answer.status).toBe(403);
    expect(h.lines.map((l) => [l.level, l.msg, 'err' in l])).toEqual([[30, 'console request refused', false]]);
  });

  it('answers another failure with 502 and logs it as a warning with its stack', () => {
    const h = harness();
    failed(h.log, h.req, h.res, new Error('connection refused'));
    expect(h.answer.status).toBe(502);
    expect(h.lines.map((l) => [l.level, l.msg])).toEqual([[40, 'console request failed']]);
    expect(JSON.stringify(h.lines[0]?.err)).toContain('stack');
  });
});
