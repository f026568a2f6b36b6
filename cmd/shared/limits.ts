/**
 * The size-limit flags shared by catalogd and the `olmv1 catalog` commands (decoding a
 * catalog; pkg/fbc DecodeLimits), and by catalogd, operator-controller and the CLI commands
 * that pull images (pkg/image ImageLimits).
 */
import type { ParseArgsConfig } from 'node:util';
import { DEFAULT_DECODE_LIMITS, type DecodeLimits } from '../../pkg/fbc/index.ts';
import { parseByteSize } from './flags.ts';

/** The `parseArgs` options of the decode limits. */
export const DECODE_LIMIT_FLAGS = {
  'max-catalog-bytes': { type: 'string' },
  'max-document-bytes': { type: 'string' },
  'max-string-bytes': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

/** The decode limits from parsed flag values (defaults for absent ones); throws on bad sizes. */
export function decodeLimitOptions(values: { [K in keyof typeof DECODE_LIMIT_FLAGS]?: string | undefined }): DecodeLimits {
  const size = (flag: keyof typeof DECODE_LIMIT_FLAGS, fallback: number): number => {
    const v = values[flag];
    return v === undefined ? fallback : parseByteSize(`--${flag}`, v);
  };
  return {
    maxCatalogBytes: size('max-catalog-bytes', DEFAULT_DECODE_LIMITS.maxCatalogBytes),
    maxDocumentBytes: size('max-document-bytes', DEFAULT_DECODE_LIMITS.maxDocumentBytes),
    maxStringBytes: size('max-string-bytes', DEFAULT_DECODE_LIMITS.maxStringBytes),
  };
}

/** Help lines of the decode limit flags, their descriptions starting at column `column`. */
export function decodeLimitHelp(column: number): string {
  const line = (flag: string, text: string): string => `  ${flag.padEnd(column - 3)} ${text}\n`;
  return (
    line('--max-catalog-bytes SIZE', `largest catalog, all files together (default ${mib(DEFAULT_DECODE_LIMITS.maxCatalogBytes)})`) +
    line('--max-document-bytes SIZE', `largest document of a catalog (default ${mib(DEFAULT_DECODE_LIMITS.maxDocumentBytes)})`) +
    line('--max-string-bytes SIZE', `longest string in a document (default ${mib(DEFAULT_DECODE_LIMITS.maxStringBytes)})`)
  );
}

/** A size for help texts: `16Mi` when it is a whole number of MiB, else bytes. */
export function mib(bytes: number): string {
  if (bytes % 2 ** 30 === 0) return `${bytes / 2 ** 30}Gi`;
  return bytes % 2 ** 20 === 0 ? `${bytes / 2 ** 20}Mi` : String(bytes);
}
