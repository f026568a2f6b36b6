/**
 * The streams a CLI command writes to (cmd/olmv1/io.ts), captured for assertions: stdout and
 * stderr apart, and both together in the order written.
 */
import { PassThrough } from 'node:stream';

export interface CapturedIO {
  stdout: PassThrough;
  stderr: PassThrough;
  out(): string;
  err(): string;
  /** stdout and stderr interleaved as written. */
  all(): string;
}

/** Fresh streams for one command run. */
export function captureIO(): CapturedIO {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const all: Buffer[] = [];
  stdout.on('data', (c: Buffer) => (out.push(c), all.push(c)));
  stderr.on('data', (c: Buffer) => (err.push(c), all.push(c)));
  const text = (chunks: Buffer[]) => (): string => Buffer.concat(chunks).toString();
  return { stdout, stderr, out: text(out), err: text(err), all: text(all) };
}
