/**
 * Opening and reading local files that must be regular files. The type is checked before the
 * open (so opening never has a device's side effects) and again on the open descriptor (so a
 * file swapped for a FIFO in between is still refused). Opens are non-blocking: opening a FIFO
 * for reading would otherwise wait for a writer.
 */
import { type Stats, closeSync, constants, fstatSync, openSync, statSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { LocalFileError, describeType, reasonOf } from './errors.ts';

// O_NONBLOCK does not change reads of regular files; O_NOCTTY keeps a terminal from becoming ours.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/**
 * Opens `path` (following symbolic links) for reading and returns the descriptor.
 * @throws LocalFileError naming `path` when it cannot be opened or is not a regular file.
 */
export function openRegularFileSync(path: string): number {
  let fd: number;
  try {
    checkRegular(path, statSync(path));
    fd = openSync(path, OPEN_FLAGS);
  } catch (cause) {
    throw asLocalError(path, 'open', cause);
  }
  try {
    checkRegular(path, fstatSync(fd));
  } catch (cause) {
    closeSync(fd);
    throw asLocalError(path, 'open', cause);
  }
  return fd;
}

/**
 * Reads the regular file `path` whole into one Buffer of its own (a caller may free it,
 * pkg/shared/bytes), sized by its descriptor so a large file is never held twice.
 * @throws LocalFileError naming `path` when it cannot be read, is not a regular file, or holds
 *   more than `maxBytes` bytes (checked before reading).
 */
export async function readRegularFile(path: string, options: { maxBytes: number }): Promise<Buffer> {
  let handle;
  try {
    checkRegular(path, await stat(path));
    handle = await open(path, OPEN_FLAGS);
  } catch (cause) {
    throw asLocalError(path, 'open', cause);
  }
  try {
    const st = await handle.stat();
    checkRegular(path, st);
    if (st.size > options.maxBytes) throw tooLarge(path, options.maxBytes);
    const whole = Buffer.allocUnsafeSlow(st.size);
    let total = 0;
    while (total < whole.length) {
      const { bytesRead } = await handle.read(whole, total, whole.length - total, null);
      if (bytesRead === 0) return whole.subarray(0, total);
      total += bytesRead;
    }
    // Read to the end rather than trusting the size: the file may have grown since.
    const more: Buffer[] = [];
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(Math.max(options.maxBytes - total, 0) + 1, 1 << 20));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > options.maxBytes) throw tooLarge(path, options.maxBytes);
      more.push(chunk.subarray(0, bytesRead));
    }
    return more.length === 0 ? whole : Buffer.concat([whole, ...more], total);
  } catch (cause) {
    throw asLocalError(path, 'read', cause);
  } finally {
    await handle.close();
  }
}

/** Wraps a failed read of the file at `path` (Node's read errors do not name the file). */
export function readFailure(path: string, cause: unknown): LocalFileError {
  return asLocalError(path, 'read', cause);
}

function checkRegular(path: string, st: Stats): void {
  if (st.isFile()) return;
  if (st.isDirectory()) throw new LocalFileError(path, `read ${JSON.stringify(path)}: is a directory`);
  throw new LocalFileError(path, `refusing ${JSON.stringify(path)}: ${describeType(st)}, not a regular file`);
}

function tooLarge(path: string, maxBytes: number): LocalFileError {
  return new LocalFileError(path, `${JSON.stringify(path)} is larger than ${maxBytes} bytes`);
}

function asLocalError(path: string, op: string, cause: unknown): LocalFileError {
  if (cause instanceof LocalFileError) return cause;
  return new LocalFileError(path, `${op} ${JSON.stringify(path)}: ${reasonOf(cause)}`, { cause });
}
