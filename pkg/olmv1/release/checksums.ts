/**
 * SHA256SUMS of a release directory, in the format `sha256sum --check` reads: `<hex>  <name>`,
 * one line per file, sorted by name.
 */
import { createHash } from 'node:crypto';

/** A release file's name (relative to the release directory) and bytes. */
export interface ReleaseFile {
  name: string;
  content: string | Uint8Array;
}

/** The SHA256SUMS text of `files` (pure). */
export function renderChecksums(files: readonly ReleaseFile[]): string {
  return (
    [...files]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((f) => `${createHash('sha256').update(f.content).digest('hex')}  ${f.name}`)
      .join('\n') + '\n'
  );
}

/** The names whose bytes no longer match `sums` (missing files included); empty when all match. */
export function verifyChecksums(sums: string, files: readonly ReleaseFile[]): string[] {
  const byName = new Map(files.map((f) => [f.name, f.content]));
  const bad: string[] = [];
  for (const line of sums.split('\n')) {
    const m = /^([0-9a-f]{64}) {2}(.+)$/.exec(line);
    if (m === null || m[1] === undefined || m[2] === undefined) continue;
    const content = byName.get(m[2]);
    if (content === undefined || createHash('sha256').update(content).digest('hex') !== m[1]) bad.push(m[2]);
  }
  return bad;
}
