/**
 * Reading the signature policy and registries.d from disk, as containers/image finds them
 * (signature/policy_config.go, docker/registries_d.go): the per-user file
 * `~/.config/containers/policy.json` when it exists, else `/etc/containers/policy.json`; the
 * per-user `~/.config/containers/registries.d` when it exists, else `/etc/containers/registries.d`.
 * Nothing is cached: each pull reads the files again, as upstream loads the policy per pull.
 * Files are read within a size bound; a file that is too big, unreadable or malformed is an
 * error naming it, never a fallback to accepting anything.
 */
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isErrno } from '../errors/index.ts';
import type { HttpResponse, HttpTransport } from './http-transport.ts';
import { readLimited } from './registry-error.ts';
import type { PolicyImage } from './signature-evaluate.ts';
import { parsePolicy, type Policy } from './signature-policy.ts';
import { lookasideFor, lookasideUrl, parseRegistriesD, type RegistriesD } from './signature-registries-d.ts';

/** Where the policy and registries.d are read from (the composition root supplies them). */
export interface SignaturePolicyPaths {
  /** `~/.config/containers/policy.json`: used when it exists. */
  userPolicy?: string | undefined;
  /** `/etc/containers/policy.json`. */
  systemPolicy: string;
  /** `~/.config/containers/registries.d`: used when it exists. */
  userRegistriesDir?: string | undefined;
  /** `/etc/containers/registries.d`. */
  systemRegistriesDir: string;
}

/** Bound of a policy, registries.d or key file (containers/image reads them whole, unbounded). */
export const MAX_CONFIG_BYTES = 4 << 20;
/** Bound of one signature (containers/image's iolimits.MaxSignatureBodySize). */
const MAX_SIGNATURE_BYTES = 4 << 20;
/** At most this many lookaside signatures are read (containers/image's maxLookasideSignatures). */
const MAX_LOOKASIDE_SIGNATURES = 128;

/** Reads `file` within `max` bytes; undefined when it does not exist. */
export async function readBounded(file: string, max: number): Promise<Buffer | undefined> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (e) {
    if (isErrno(e, 'ENOENT')) return undefined;
    throw e;
  }
  try {
    const buf = Buffer.alloc(max + 1);
    let n = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buf, n, buf.length - n, null);
      if (bytesRead === 0) break;
      n += bytesRead;
      if (n > max) throw new Error(`file is larger than ${max} bytes`);
    }
    return buf.subarray(0, n);
  } finally {
    await handle.close();
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await readdir(path);
    return true;
  } catch {
    return false;
  }
}

/** The policy in force now: undefined when neither file exists (upstream then accepts anything). */
export async function loadPolicy(paths: SignaturePolicyPaths): Promise<{ file: string; policy: Policy } | undefined> {
  let file = paths.systemPolicy;
  let data: Buffer | undefined;
  if (paths.userPolicy !== undefined) {
    data = await readPolicyFile(paths.userPolicy);
    if (data !== undefined) file = paths.userPolicy;
  }
  data ??= await readPolicyFile(paths.systemPolicy);
  if (data === undefined) return undefined;
  const parsed = parsePolicy(data.toString('utf8'), file);
  if (!parsed.ok) throw new Error(parsed.error);
  return { file, policy: parsed.value };
}

async function readPolicyFile(file: string): Promise<Buffer | undefined> {
  try {
    return await readBounded(file, MAX_CONFIG_BYTES);
  } catch (e) {
    throw new Error(`invalid policy in ${JSON.stringify(file)}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

/** The registries.d configuration in force now (empty when the directory is missing). */
export async function loadRegistriesD(paths: SignaturePolicyPaths): Promise<RegistriesD> {
  const dir = paths.userRegistriesDir !== undefined && (await exists(paths.userRegistriesDir)) ? paths.userRegistriesDir : paths.systemRegistriesDir;
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.yaml')).sort();
  } catch (e) {
    if (isErrno(e, 'ENOENT')) names = [];
    else throw new Error(`reading registries.d ${JSON.stringify(dir)}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  const files: Array<[string, string]> = [];
  for (const name of names) {
    const file = join(dir, name);
    let data;
    try {
      data = await readBounded(file, MAX_CONFIG_BYTES);
    } catch (e) {
      throw new Error(`reading registries.d file ${JSON.stringify(file)}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    if (data !== undefined) files.push([file, data.toString('utf8')]);
  }
  const parsed = parseRegistriesD(files);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

/**
 * Reads one lookaside signature over http(s): its bytes, or undefined when the server says 404.
 * Injected (the image client's {@link httpLookasideReader}), never the global `fetch`.
 */
export type LookasideHttp = (url: URL, signal?: AbortSignal) => Promise<Uint8Array | undefined>;

/**
 * The image's lookaside signatures (`file://` or `http(s)://`), numbered from 1 until the first
 * missing one. No lookaside configured: none (the registry signature API is not consulted).
 * Without `http`, an http(s) lookaside is an error (nothing is fetched outside the image client).
 */
export async function lookasideSignatures(
  config: RegistriesD,
  image: PolicyImage,
  http: LookasideHttp | undefined,
  signal?: AbortSignal,
): Promise<Uint8Array[]> {
  const base = lookasideFor(config, image.ref);
  if (base === undefined) return [];
  const sigs: Uint8Array[] = [];
  for (let i = 1; ; i++) {
    if (i > MAX_LOOKASIDE_SIGNATURES) throw new Error(`server provided ${i - 1} signatures, assuming that's unreasonable and a server error`);
    const url = lookasideUrl(base, image.ref, image.digest, i);
    const sig = await readSignature(url, http, signal);
    if (sig === undefined) return sigs;
    sigs.push(sig);
  }
}

async function readSignature(url: URL, http: LookasideHttp | undefined, signal: AbortSignal | undefined): Promise<Uint8Array | undefined> {
  if (url.protocol === 'file:') {
    try {
      return await readBounded(decodeURIComponent(url.pathname), MAX_SIGNATURE_BYTES);
    } catch (e) {
      throw new Error(`reading signature from ${url.href}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`Unsupported scheme when reading signatures from ${url.href}`);
  if (http === undefined) throw new Error(`reading signature from ${url.href}: no HTTP client configured for lookaside signatures`);
  return http(url, signal);
}

/** Bounds of {@link httpLookasideReader}. */
interface LookasideHttpOptions {
  /** Largest signature accepted (default 4 MiB, containers/image's MaxSignatureBodySize). */
  maxBytes?: number | undefined;
  /** Bound of one signature's whole request, headers and body (default 60 s). */
  timeoutMs?: number | undefined;
}

const DEFAULT_LOOKASIDE_TIMEOUT_MS = 60_000;

/**
 * Lookaside reads through the image client's transport: its proxy, CA bundle, certificate
 * directories, connect and read timeouts, plus a bound on the whole request (a server that
 * drips bytes forever) and on the size. No registry credentials are sent (as containers/image,
 * which GETs the lookaside URL without the registry's authentication). Any status but 200 and
 * 404, a timeout or an oversized answer is an error naming the URL, so the signature is never
 * accepted.
 */
export function httpLookasideReader(transport: Pick<HttpTransport, 'request'>, options: LookasideHttpOptions = {}): LookasideHttp {
  const maxBytes = options.maxBytes ?? MAX_SIGNATURE_BYTES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOOKASIDE_TIMEOUT_MS;
  return async (url, signal) => {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error(`no complete answer within ${timeoutMs} ms`)), timeoutMs);
    const combined = signal === undefined ? deadline.signal : AbortSignal.any([signal, deadline.signal]);
    const fail = (e: unknown): never => {
      const reason = deadline.signal.aborted && signal?.aborted !== true ? (deadline.signal.reason as Error) : e;
      throw new Error(`reading signature from ${url.href}: ${reason instanceof Error ? reason.message : String(reason)}`, { cause: e });
    };
    try {
      let res: HttpResponse;
      try {
        res = await transport.request({ method: 'GET', url, signal: combined });
      } catch (e) {
        return fail(e);
      }
      const onAbort = (): void => void res.body.destroy(deadline.signal.reason as Error);
      deadline.signal.addEventListener('abort', onAbort, { once: true });
      try {
        if (res.status === 404) {
          res.body.resume();
          return undefined;
        }
        if (res.status !== 200) {
          res.body.resume();
          throw new Error(`reading signature from ${url.href}: status ${res.status} (${res.statusText})`);
        }
        const length = Number(res.headers['content-length']);
        if (res.headers['content-length'] !== undefined && Number.isFinite(length) && length > maxBytes) {
          res.body.destroy();
          throw new Error(`reading signature from ${url.href}: exceeds ${maxBytes} bytes`);
        }
        try {
          return await readLimited(res.body, maxBytes, 'signature');
        } catch (e) {
          if (e instanceof Error && e.message === `signature is larger than ${maxBytes} bytes`) {
            throw new Error(`reading signature from ${url.href}: exceeds ${maxBytes} bytes`, { cause: e });
          }
          return fail(e);
        }
      } finally {
        deadline.signal.removeEventListener('abort', onAbort);
      }
    } finally {
      clearTimeout(timer);
    }
  };
}
