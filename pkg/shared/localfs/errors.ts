/**
 * The error every refusal and I/O failure of this module throws: its message names the path
 * (Node's own messages for reads do not: `EISDIR: illegal operation on a directory, read`).
 */
import { errorMessage, isErrno } from '../errors/index.ts';

/** A local file or directory that could not or must not be read. */
export class LocalFileError extends Error {
  /** The path as the caller gave it. */
  readonly path: string;

  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LocalFileError';
    this.path = path;
  }
}

interface TypeProbe {
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isDirectory(): boolean;
}

/** "a FIFO", "a socket", ... for a non-regular file type (from a Dirent or Stats). */
export function describeType(t: TypeProbe): string {
  if (t.isFIFO()) return 'a FIFO';
  if (t.isSocket()) return 'a socket';
  if (t.isCharacterDevice()) return 'a character device';
  if (t.isBlockDevice()) return 'a block device';
  if (t.isDirectory()) return 'a directory';
  return 'a special file';
}

/** The system error's text without Node's `, syscall 'path'` tail (callers name the path). */
export function reasonOf(err: unknown): string {
  if (isErrno(err)) {
    const m = /^[A-Z0-9]+: (.*?)(?:, \w+(?: '.*')?)?$/s.exec(err.message);
    if (m?.[1] !== undefined) return m[1];
  }
  return errorMessage(err);
}
