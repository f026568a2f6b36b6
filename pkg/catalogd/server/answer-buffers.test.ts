import { afterEach, describe, expect, it, vi } from 'vitest';
import { AnswerBuffers } from './answer-buffers.ts';

describe('AnswerBuffers', () => {
  it('lends a slab of the smallest class that holds the answer, and lends it again once released', () => {
    const pool = new AnswerBuffers([
      { size: 1024, keep: 2 },
      { size: 64, keep: 2 },
    ]);
    const small = pool.lease(10);
    expect(small.buf.length).toBe(64);
    const large = pool.lease(65);
    expect(large.buf.length).toBe(1024);
    small.release();
    expect(pool.idle).toEqual([1, 0]);
    expect(pool.lease(64).buf).toBe(small.buf);
  });

  it('never lends a slab that is out on loan, and keeps at most `keep` per class', () => {
    const pool = new AnswerBuffers([{ size: 64, keep: 2 }]);
    const leases = [pool.lease(1), pool.lease(1), pool.lease(1)];
    expect(new Set(leases.map((l) => l.buf)).size).toBe(3);
    for (const l of leases) l.release();
    expect(pool.idle).toEqual([2]);
  });

  it('frees a released slab it does not keep at once, and keeps the others usable', () => {
    const pool = new AnswerBuffers([{ size: 64, keep: 1 }]);
    const [kept, extra] = [pool.lease(1), pool.lease(1)];
    kept.release();
    extra.release();
    expect(extra.buf.length).toBe(0);
    expect(extra.buf.buffer.byteLength).toBe(0);
    const again = pool.lease(64);
    expect(again.buf).toBe(kept.buf);
    expect(again.buf.length).toBe(64);
  });

  it('ignores a second release of the same lease', () => {
    const pool = new AnswerBuffers([{ size: 64, keep: 4 }]);
    const lease = pool.lease(1);
    lease.release();
    lease.release();
    expect(pool.idle).toEqual([1]);
    const a = pool.lease(1);
    const b = pool.lease(1);
    expect(a.buf).not.toBe(b.buf);
  });

  it('gives answers larger than every class a buffer of their own that is not pooled', () => {
    const pool = new AnswerBuffers([{ size: 64, keep: 4 }]);
    const lease = pool.lease(100);
    expect(lease.buf.length).toBe(100);
    lease.release();
    expect(pool.idle).toEqual([0]);
  });

  it('slabs own their memory (not slices of a shared pool)', () => {
    const pool = new AnswerBuffers([{ size: 64, keep: 1 }]);
    const { buf } = pool.lease(1);
    expect(buf.byteOffset).toBe(0);
    expect(buf.buffer.byteLength).toBe(64);
  });

  describe('when idle', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('drops kept slabs once no lease was taken for idleMs, and not before', () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
      const pool = new AnswerBuffers([{ size: 64, keep: 4 }], { idleMs: 1_000 });
      pool.lease(1).release();
      vi.advanceTimersByTime(600);
      const again = pool.lease(1); // keeps the pool busy: the first check finds a recent lease
      again.release();
      vi.advanceTimersByTime(600);
      expect(pool.idle).toEqual([1]);
      const dropped = again.buf;
      vi.advanceTimersByTime(500);
      expect(pool.idle).toEqual([0]);
      expect(dropped.buffer.byteLength).toBe(0); // freed, not left for a collection
      // Released slabs are kept again afterwards.
      pool.lease(1).release();
      expect(pool.idle).toEqual([1]);
    });
  });
});
