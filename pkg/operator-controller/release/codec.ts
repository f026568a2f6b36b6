/**
 * The payload of a release record: Helm's release JSON (helm-format.ts) plus "\n", gzip'd at
 * level 9 and cut into pieces of one Secret each, as upstream's chunked driver stores it, and
 * the way back with every step checked.
 *
 * Chunk size: unlike upstream (whose pieces make Secrets of ~1.39 MB), the WHOLE serialized
 * Secret stays under 1 MiB: CHUNK_SIZE (a multiple of 3, base64'd in JSON) leaves 16 KiB for
 * the server's metadata and our fields (bench/results/release-records.md), and every Secret is
 * checked before it is sent. Readers join pieces of any size, so upstream's records read too.
 *
 * Decoded size: a record's Secrets are tamperable and deflate inflates ~1,000 times, so what a
 * payload decompresses to is bounded as zlib produces it; past the bound the record is corrupt.
 */
import { once } from 'node:events';
import { promisify } from 'node:util';
import { createGzip, gunzip, gzip, constants as zlibConstants } from 'node:zlib';
import type { KubeObject } from '../../shared/kube/index.ts';
import { fromHelmRelease, fromHelmReleaseLines, fromHelmReleaseSummary, helmReleaseJson } from './helm-format.ts';
import { fromLegacyRelease, isLegacyRelease } from './legacy.ts';
import { manifestLinesFromBytes, type ManifestSpill } from './manifest-bytes.ts';
import { manifestRange, withoutManifest } from './manifest-bytes.ts';
import type { Release, ReleaseSummary } from './types.ts';
import { freeOwnedBytes } from '../../shared/bytes/index.ts';
import { errorMessage, isErrno, jsonSyntaxProblem } from '../../shared/errors/index.ts';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);
/** Characters of release JSON up to which a release is compressed in one call (encodeRelease). */
const SMALL = 1 << 20;

/** Hard limit of one serialized Secret, in bytes (1 MiB). */
export const SECRET_SIZE_LIMIT = 1_048_576;
/** Bytes kept for the metadata the API server adds to a stored Secret. */
export const SERVER_ADDED_ALLOWANCE = 4_096;
/** Size of one payload piece (756 KiB; see the file comment for the arithmetic). */
export const CHUNK_SIZE = 774_144;
/** Most pieces a release may have, read or written (upstream's MaxReadChunks/MaxWriteChunks). */
export const MAX_CHUNKS = 11;

const MiB = 1024 * 1024;
/**
 * Most bytes a record's payload may decompress to, 64 MiB: twice the bundles' unpacked-bytes
 * cap, room for what rendering and JSON's escapes add (decision 0098).
 */
export const MAX_RECORD_JSON_BYTES = 64 * MiB;

/** A release that cannot be stored within MAX_CHUNKS Secrets of at most SECRET_SIZE_LIMIT bytes. Thrown by create/update. */
export class ReleaseTooLargeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReleaseTooLargeError';
  }
}

/** The uncompressed payload: Helm's release JSON of `release` and a newline (Go's json.Encoder output shape). */
export function releaseJson(release: Release): string {
  return [...helmReleaseJson(release)].join('');
}

/**
 * The compressed payload of `release` (gzip, best compression), compressed as it is produced so
 * that a large release is never held as text (decision 0098); deflate's output does not depend
 * on how its input is cut into writes.
 */
export async function encodeRelease(release: Release): Promise<Buffer> {
  const parts = helmReleaseJson(release);
  // A release of up to SMALL characters (every real one) is compressed in one call, which
  // costs less than a stream; the bytes are the same either way.
  const head: string[] = [];
  let size = 0;
  let next = parts.next();
  for (; next.done !== true && size <= SMALL; next = parts.next()) {
    head.push(next.value);
    size += next.value.length;
  }
  if (next.done === true) return gzipAsync(head.join(''), { level: zlibConstants.Z_BEST_COMPRESSION });
  const gz = createGzip({ level: zlibConstants.Z_BEST_COMPRESSION });
  const out: Buffer[] = [];
  gz.on('data', (b: Buffer) => out.push(b));
  const done = once(gz, 'end');
  // A stream error rejects the pending drain wait too, which is what throws; this keeps the
  // second rejection from going unhandled.
  done.catch(() => undefined);
  for (const part of head.splice(0)) if (!gz.write(part)) await once(gz, 'drain');
  for (; next.done !== true; next = parts.next()) if (!gz.write(next.value)) await once(gz, 'drain');
  gz.end();
  await done;
  return Buffer.concat(out);
}

/** Cuts `payload` into pieces of CHUNK_SIZE bytes (the last one shorter; one empty piece for an empty payload). */
export function splitPayload(payload: Uint8Array, chunkSize: number = CHUNK_SIZE): Buffer[] {
  const buf = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  if (buf.length === 0) return [buf];
  const pieces: Buffer[] = [];
  for (let at = 0; at < buf.length; at += chunkSize) pieces.push(buf.subarray(at, at + chunkSize));
  return pieces;
}

/** Throws ReleaseTooLargeError with upstream's message when `pieces` pieces exceed MAX_CHUNKS. */
export function assertChunkCount(key: string, pieces: number): void {
  if (pieces > MAX_CHUNKS) {
    throw new ReleaseTooLargeError(`release too large: ${JSON.stringify(key)} requires ${pieces} chunks, which exceeds the maximum of ${MAX_CHUNKS}`);
  }
}

/** Bytes of `obj` serialized as JSON (UTF-8), as sent to and returned by the API server. */
export function serializedSize(obj: unknown): number {
  return Buffer.byteLength(JSON.stringify(obj));
}

/**
 * Throws ReleaseTooLargeError unless `secret`, once the API server has added its metadata
 * (SERVER_ADDED_ALLOWANCE), stays within SECRET_SIZE_LIMIT.
 */
export function assertSecretFits(key: string, secret: KubeObject): void {
  const size = serializedSize(secret) + SERVER_ADDED_ALLOWANCE;
  if (size > SECRET_SIZE_LIMIT) {
    throw new ReleaseTooLargeError(
      `release too large: ${JSON.stringify(key)}: Secret ${JSON.stringify(secret.metadata.name)} would be ${size} bytes with server metadata, over the limit of ${SECRET_SIZE_LIMIT}`,
    );
  }
}

/**
 * What decoding `payload` holds at most as text: the uncompressed size its gzip trailer states
 * (ISIZE, the size modulo 2^32), and never less than the payload itself. An estimate for the
 * memory budget (decision 0098), read before anything is decompressed.
 */
export function decodedSize(payload: Uint8Array): number {
  const stated = payload.length >= 18 ? Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).readUInt32LE(payload.length - 4) : 0;
  return Math.max(stated, payload.length);
}

/**
 * Decodes the joined pieces of a record: gunzip, JSON, then Helm's release JSON (ours or
 * upstream's) or the earlier format (legacy.ts). `extensionUID` is the record's owner reference.
 * Throws an Error naming `where` (the index Secret), the failing step and its cause. The
 * manifest is kept as text, or with `spill` and a record over `spill.aboveBytes`, read from the
 * bytes into a sink's lines (decision 0098 item 17).
 */
export async function decodeRelease(
  payload: Uint8Array,
  where: string,
  extensionUID = '',
  spill?: ManifestSpill,
  maxBytes = MAX_RECORD_JSON_BYTES,
): Promise<Release> {
  if (spill !== undefined) {
    const json = await decompress(payload, where, maxBytes);
    const lined = json.length > spill.aboveBytes ? releaseWithLines(json, where, extensionUID, spill) : undefined;
    if (lined !== undefined) {
      freeOwnedBytes(json);
      return lined;
    }
    return releaseOf(parseDocument(json, where), where, extensionUID);
  }
  return releaseOf(await decodeDocument(payload, where, maxBytes), where, extensionUID);
}

/**
 * A Helm-format release whose manifest went from `json` into a sink of `spill`, or undefined
 * when it is not of that shape or anything fails: the caller then decodes it whole, and says
 * what is wrong. A sink opened before such a failure is left to whoever gave `open`.
 */
function releaseWithLines(json: Buffer, where: string, extensionUID: string, spill: ManifestSpill): Release | undefined {
  try {
    const range = manifestRange(json);
    const lines = range === undefined ? undefined : manifestLinesFromBytes(json, range, spill.open);
    if (range === undefined || lines === undefined) return undefined;
    const rest = Buffer.concat([json.subarray(0, range.start), json.subarray(range.end)]);
    const doc: unknown = JSON.parse(rest.toString('utf8'));
    if (isLegacyRelease(doc)) return undefined;
    const decoded = fromHelmReleaseLines(doc, extensionUID, lines, where);
    return decoded.ok ? decoded.release : undefined;
  } catch {
    return undefined;
  }
}

function releaseOf(doc: unknown, where: string, extensionUID: string): Release {
  const decoded = isLegacyRelease(doc) ? fromLegacyRelease(doc) : fromHelmRelease(doc, extensionUID, where);
  if (!decoded.ok) throw corrupt(where, decoded.problem, new Error(decoded.problem));
  return decoded.release;
}

/**
 * As {@link decodeRelease}, without the manifest's objects (ReleaseSummary): a Helm-format
 * record's manifest is left as text and dropped. Records of the earlier format keep their
 * objects in the JSON itself and are read whole, then summarized.
 */
export async function decodeReleaseSummary(
  payload: Uint8Array,
  where: string,
  extensionUID = '',
  maxBytes = MAX_RECORD_JSON_BYTES,
): Promise<ReleaseSummary> {
  const doc = await decodeDocument(payload, where, maxBytes, withoutManifest);
  if (isLegacyRelease(doc)) {
    const legacy = fromLegacyRelease(doc);
    if (!legacy.ok) throw corrupt(where, legacy.problem, new Error(legacy.problem));
    const { manifest: _objects, ...summary } = legacy.release;
    return summary;
  }
  const decoded = fromHelmReleaseSummary(doc, extensionUID);
  if (!decoded.ok) throw corrupt(where, decoded.problem, new Error(decoded.problem));
  return decoded.summary;
}

/** The JSON document of a record's payload (gunzip, then JSON); throws naming `where` and the failing step. */
async function decodeDocument(payload: Uint8Array, where: string, maxBytes: number, cut?: (json: Buffer) => Buffer | undefined): Promise<unknown> {
  const json = await decompress(payload, where, maxBytes);
  return parseDocument(json, where, cut?.(json));
}

/**
 * The decompressed payload, at most `maxBytes` long; throws naming `where`. A gzip payload whose
 * trailer states more than `maxBytes` is reported too large before anything is inflated (the
 * trailer states the last member's size modulo 2^32, never more than the whole, and a false one
 * makes the payload corrupt anyway); any other stops at the bound as zlib produces it, so one
 * that inflates to gigabytes costs `maxBytes` once.
 */
async function decompress(payload: Uint8Array, where: string, maxBytes: number): Promise<Buffer> {
  if (isGzip(payload) && decodedSize(payload) > maxBytes) throw new PayloadTooLargeError(where, payload.length, maxBytes);
  try {
    return await gunzipAsync(payload, { maxOutputLength: maxBytes });
  } catch (e) {
    if (isErrno(e, 'ERR_BUFFER_TOO_LARGE')) throw new PayloadTooLargeError(where, payload.length, maxBytes, e);
    throw corrupt(where, `decompressing the payload failed: ${errorMessage(e)}`, e);
  }
}

/** A payload that decompresses to more than `maxBytes`: the record under `where` is corrupt. */
export class PayloadTooLargeError extends Error {
  constructor(where: string, compressedBytes: number, maxBytes: number, cause?: unknown) {
    super(
      `release record ${where} is corrupt: its payload decompresses to more than ${sizeText(maxBytes)} (${sizeText(compressedBytes)} compressed)`,
      {
        cause,
      },
    );
    this.name = 'PayloadTooLargeError';
  }
}

/** Whether `payload` starts as a gzip member does (RFC 1952's ID1 ID2). */
function isGzip(payload: Uint8Array): boolean {
  return payload.length >= 18 && payload[0] === 0x1f && payload[1] === 0x8b;
}

/** The error of a record that is not one: `release record <where> is corrupt: <problem>`. */
function corrupt(where: string, problem: string, cause: unknown): Error {
  return new Error(`release record ${where} is corrupt: ${problem}`, { cause });
}

/** `64 MiB`, `1.3 MiB`, `12.5 KiB` or `300 bytes`: a size for messages. */
function sizeText(bytes: number): string {
  const unit = (n: number, name: string): string => `${Number.isInteger(n) ? n : n.toFixed(1)} ${name}`;
  if (bytes >= MiB) return unit(bytes / MiB, 'MiB');
  return bytes >= 1024 ? unit(bytes / 1024, 'KiB') : `${bytes} bytes`;
}

/** The JSON document of `json`, or of `cut` (a copy of it without part of it) when given; both are freed. */
function parseDocument(json: Buffer, where: string, cut?: Buffer): unknown {
  let text: string;
  try {
    const bytes = cut ?? json;
    text = bytes.toString('utf8');
    // The text is a copy: the decompressed bytes (a large record's whole size, outside V8's
    // heap) are freed now rather than at some later collection (decision 0098).
    freeOwnedBytes(json);
    if (bytes !== json) freeOwnedBytes(bytes);
  } catch (e) {
    // Only a payload longer than V8's longest string gets here (a bound above 512 MiB).
    throw corrupt(where, `its payload cannot be read as text: ${errorMessage(e)}`, e);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    // Not V8's message, nor the error as cause: both quote the payload (issue 69).
    throw corrupt(where, `the payload is not JSON: ${jsonSyntaxProblem(e)}`, undefined);
  }
  return doc;
}
