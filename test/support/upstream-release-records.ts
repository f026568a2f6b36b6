/**
 * Release records as upstream operator-controller writes them (helm-operator-plugins' chunked
 * Secrets driver, decision 0074), built with code of their own from the
 * documented format, never by pkg/operator-controller/release's writer, so that reading them tests our reader
 * against upstream's format and not against itself:
 *  - the payload is Helm's release JSON as Go encodes it (test/fixtures/upstream-releases),
 *    gzip'd at level 9 and cut into 1,040,384-byte pieces;
 *  - the index Secret `sh.helm.release.v1.<name>.v<N>` (type operatorframework.io/index.v1)
 *    holds piece 1 and `extraChunks`, the JSON list of the other pieces' Secret names
 *    `<key>-<base32(fnv64a(piece))>` (alphabet a-z1-6, no padding), and the controller
 *    reference to the ClusterExtension; each chunk Secret (operatorframework.io/chunk.v1) one
 *    piece and a controller reference to the index. Labels are upstream's, no others.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';

/** Upstream's ChunkSize: (1024-8)*1024 bytes. */
export const UPSTREAM_CHUNK_SIZE = 1_040_384;

/** The ClusterExtension the fixture's objects name as their owner. */
export const FIXTURE_EXTENSION = { name: 'argocd', uid: '8b5fd8a6-3c53-4f0e-9d1b-6f0c1f6a2a11' } as const;

/** The payload (release JSON and "\n") of test/fixtures/upstream-releases/argocd-v1.release.json. */
export function fixturePayload(): string {
  return readFileSync(new URL('../fixtures/upstream-releases/argocd-v1.release.json', import.meta.url), 'utf8');
}

/** Go's encoding/json text of `value` for maps: keys sorted, `<`, `>`, `&` escaped (HTML-safe). */
export function goJson(value: unknown): string {
  return htmlEscape(JSON.stringify(sortKeys(value)));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const o = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, sortKeys(o[k])]),
  );
}

function htmlEscape(json: string): string {
  return json.replaceAll('<', '\\u003c').replaceAll('>', '\\u003e').replaceAll('&', '\\u0026');
}

/**
 * `payload` with fields of the release replaced (its struct order kept, as JSON.parse keeps
 * key order) and `extraObjects` appended to the manifest as upstream's post-renderer writes them.
 */
export function editPayload(
  payload: string,
  edit: { name?: string; version?: number; status?: string; extraObjects?: readonly object[]; labels?: Record<string, string> },
): string {
  const doc = JSON.parse(payload) as { name: string; version: number; info: { status: string }; manifest: string; labels: Record<string, string> };
  if (edit.name !== undefined) doc.name = edit.name;
  if (edit.version !== undefined) doc.version = edit.version;
  if (edit.status !== undefined) doc.info.status = edit.status;
  if (edit.labels !== undefined) doc.labels = edit.labels;
  for (const obj of edit.extraObjects ?? []) doc.manifest += `${goJson(obj)}\n`;
  return `${htmlEscape(JSON.stringify(doc))}\n`;
}

/**
 * ConfigMaps of random data, labelled as upstream's are, that gzip to about `bytes` (each
 * holds 150,000 random bytes in base64, which compresses back to about those 150,000).
 */
export function randomConfigMaps(bytes: number, namespace = 'argocd'): object[] {
  const out: object[] = [];
  for (let i = 0; i * 150_000 < bytes; i++) {
    out.push({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `blob-${i}`, namespace, labels: { 'olm.operatorframework.io/owner-kind': 'ClusterExtension' } },
      data: { blob: randomBytes(150_000).toString('base64') },
    });
  }
  return out;
}

/** One revision as upstream stores it: the index Secret, and its chunk Secrets once the index's uid is known. */
export interface UpstreamRecord {
  key: string;
  /** The gzip'd payload, all pieces joined. */
  payload: Buffer;
  index: KubeObject;
  chunks(indexUid: string): KubeObject[];
}

/**
 * The Secrets of `payload` (a release JSON line) as upstream's driver creates them in
 * `namespace`, owned by `extension`; `createdAt` in unix seconds.
 */
export function upstreamRecord(
  payload: string,
  namespace: string,
  extension: { name: string; uid: string },
  createdAt = '1741940813',
): UpstreamRecord {
  const doc = JSON.parse(payload) as { name: string; version: number; info: { status: string } };
  return upstreamRecordOf(
    gzipSync(payload, { level: 9 }),
    { name: doc.name, version: doc.version, status: doc.info.status },
    namespace,
    extension,
    createdAt,
  );
}

/**
 * As {@link upstreamRecord}, of a payload already compressed (`gz`, whatever it holds) for the
 * release `doc` names: the labels come from `doc`, the pieces from `gz` as they are.
 */
export function upstreamRecordOf(
  gz: Buffer,
  doc: { name: string; version: number; status: string },
  namespace: string,
  extension: { name: string; uid: string },
  createdAt = '1741940813',
): UpstreamRecord {
  const key = `sh.helm.release.v1.${doc.name}.v${doc.version}`;
  const pieces: Buffer[] = [];
  for (let at = 0; at < gz.length; at += UPSTREAM_CHUNK_SIZE) pieces.push(gz.subarray(at, at + UPSTREAM_CHUNK_SIZE));
  const names = pieces.slice(1).map((p) => `${key}-${base32NoPad(fnv1a64(p))}`);
  const b64 = (b: Uint8Array | string) => Buffer.from(b).toString('base64');
  const index: KubeObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: key,
      namespace,
      labels: { name: doc.name, owner: 'operator-controller', status: doc.status, version: String(doc.version), key, type: 'index', createdAt },
      ownerReferences: [
        {
          apiVersion: 'olm.operatorframework.io/v1',
          kind: 'ClusterExtension',
          name: extension.name,
          uid: extension.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    type: 'operatorframework.io/index.v1',
    immutable: false,
    data: { chunk: b64(pieces[0] ?? Buffer.alloc(0)), extraChunks: b64(JSON.stringify(names)) },
  };
  const chunks = (indexUid: string): KubeObject[] =>
    pieces.slice(1).map((piece, i) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: names[i] ?? '',
        namespace,
        labels: { owner: 'operator-controller', key, type: 'chunk', createdAt },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: key, uid: indexUid, controller: true, blockOwnerDeletion: false }],
      },
      type: 'operatorframework.io/chunk.v1',
      immutable: true,
      data: { chunk: b64(piece) },
    }));
  return { key, payload: gz, index, chunks };
}

/** FNV-1a, 64 bits, as the 8 big-endian bytes Go's hash.Sum(nil) returns. */
function fnv1a64(data: Uint8Array): Uint8Array {
  let hash = 0xcbf29ce484222325n;
  for (const byte of data) hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * 0x100000001b3n);
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, hash);
  return out;
}

/** RFC 4648 base32 of `bytes`, alphabet a-z1-6, no padding (Go's base32.NewEncoding(...).WithPadding(NoPadding)). */
function base32NoPad(bytes: Uint8Array): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz123456';
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += alphabet[(buffer << (5 - bits)) & 31];
  return out;
}
