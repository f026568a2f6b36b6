/**
 * Errors for unexpected registry responses, with the HTTP status and the registry's error codes
 * (distribution spec `{"errors":[...]}`), so messages say what was refused and callers can match.
 */
import type { Readable } from 'node:stream';
import type { HttpResponse } from './http-transport.ts';

/** One entry of a registry's JSON error body. */
interface RegistryErrorEntry {
  code: string;
  message: string;
}

/** A registry answered with an unexpected status. Retryable, as upstream treats such failures. */
class RegistryError extends Error {
  readonly status: number;
  readonly errors: readonly RegistryErrorEntry[];

  constructor(message: string, status: number, errors: readonly RegistryErrorEntry[]) {
    super(message);
    this.name = 'RegistryError';
    this.status = status;
    this.errors = errors;
  }

  /** The registry error codes, e.g. `MANIFEST_UNKNOWN`, `UNAUTHORIZED`. */
  get codes(): string[] {
    return this.errors.map((e) => e.code);
  }
}

/** True for the registry client's error for a 404 answer (manifest or repository unknown). */
export function isRegistryNotFound(err: unknown): boolean {
  return err instanceof Error && err.name === 'RegistryError' && (err as Error & { status?: unknown }).status === 404;
}

const ERROR_BODY_LIMIT = 64 * 1024;

/** Reads at most `limit` bytes of `body`; throws `<what> is larger than <limit> bytes` (destroying it) or its error. */
export async function readLimited(body: Readable, limit: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limit) {
      body.destroy();
      throw new Error(`${what} is larger than ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

function parseErrorBody(text: string): RegistryErrorEntry[] {
  try {
    const doc = JSON.parse(text) as unknown;
    const list = (doc as { errors?: unknown } | null)?.errors;
    if (!Array.isArray(list)) return [];
    const out: RegistryErrorEntry[] = [];
    for (const e of list) {
      const code = (e as { code?: unknown })?.code;
      const message = (e as { message?: unknown })?.message;
      out.push({ code: typeof code === 'string' ? code : 'UNKNOWN', message: typeof message === 'string' ? message : '' });
    }
    return out;
  } catch {
    return [];
  }
}

/**
 * Builds the error for an unexpected response: `<what>: HTTP <status> <text>[: <CODE>:
 * <message>; ...]`. Falls back to a short excerpt of a non-JSON body. Consumes the body.
 */
export async function registryErrorFrom(res: HttpResponse, what: string): Promise<RegistryError> {
  let text = '';
  try {
    text = (await readLimited(res.body, ERROR_BODY_LIMIT, 'error body')).toString('utf8');
  } catch {
    // The status alone still says what failed.
  }
  const errors = parseErrorBody(text);
  let message = `${what}: HTTP ${res.status}${res.statusText !== '' ? ` ${res.statusText}` : ''}`;
  if (errors.length > 0) {
    message += `: ${errors.map((e) => (e.message !== '' ? `${e.code}: ${e.message}` : e.code)).join('; ')}`;
  } else {
    const excerpt = text.replace(/\s+/g, ' ').trim().slice(0, 200);
    if (excerpt !== '') message += `: ${excerpt}`;
  }
  return new RegistryError(message, res.status, errors);
}
