/**
 * Byte-level UTF-8 helpers mirroring Go's `utf8.DecodeRune` and the `unicode.IsSpace` prefix
 * trim the stream sniffer uses (Go decides JSON vs YAML on runes, not bytes).
 */
import { goIsSpace } from '../../gocompat/gotext/index.ts';

/** Go's utf8.RuneError. */
export const RUNE_ERROR = 0xfffd;

/**
 * Decodes the rune at `i` (bytes up to `end`): `[codePoint, size]`. Invalid, overlong,
 * surrogate or truncated sequences give `[RUNE_ERROR, 1]`, and an empty range `[RUNE_ERROR, 0]`,
 * exactly like Go's `utf8.DecodeRune`.
 */
export function decodeRune(buf: Uint8Array, i: number, end: number): [number, number] {
  if (i >= end) return [RUNE_ERROR, 0];
  const b0 = buf[i] as number;
  if (b0 < 0x80) return [b0, 1];
  const cont = (k: number): number => {
    const b = i + k < end ? (buf[i + k] as number) : -1;
    return b >= 0x80 && b <= 0xbf ? b & 0x3f : -1;
  };
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    const c1 = cont(1);
    return c1 < 0 ? [RUNE_ERROR, 1] : [((b0 & 0x1f) << 6) | c1, 2];
  }
  if (b0 >= 0xe0 && b0 <= 0xef) {
    const c1 = cont(1);
    const c2 = cont(2);
    if (c1 < 0 || c2 < 0) return [RUNE_ERROR, 1];
    const cp = ((b0 & 0x0f) << 12) | (c1 << 6) | c2;
    if (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)) return [RUNE_ERROR, 1];
    return [cp, 3];
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const c1 = cont(1);
    const c2 = cont(2);
    const c3 = cont(3);
    if (c1 < 0 || c2 < 0 || c3 < 0) return [RUNE_ERROR, 1];
    const cp = ((b0 & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3;
    if (cp < 0x10000 || cp > 0x10ffff) return [RUNE_ERROR, 1];
    return [cp, 4];
  }
  return [RUNE_ERROR, 1];
}

/** apimachinery's `IsJSONBuffer`: true when the first rune that is not `unicode.IsSpace` is `{`. */
export function looksLikeJson(buf: Uint8Array, start: number, end: number): boolean {
  let i = start;
  while (i < end) {
    const [cp, size] = decodeRune(buf, i, end);
    if (cp === RUNE_ERROR || !goIsSpace(cp)) return cp === 0x7b;
    i += size;
  }
  return false;
}
