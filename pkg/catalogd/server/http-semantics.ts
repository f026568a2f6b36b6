/**
 * The HTTP details catalogd clients observe, as upstream's Go server has them (reference
 * catalogd-and-fbc.md §3.3-3.7): path cleaning, HTTP dates, RFC 7232 conditionals (no ETags),
 * byte ranges and gzip negotiation.
 */

/** Go's path.Clean as ServeMux applies it (a trailing slash is kept). */
export function cleanPath(p: string): string {
  if (p === '') return '/';
  const rooted = p.startsWith('/') ? p : `/${p}`;
  const out: string[] = [];
  for (const part of rooted.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  let cleaned = `/${out.join('/')}`;
  if (rooted.endsWith('/') && cleaned !== '/') cleaned += '/';
  return cleaned;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `Mon, 02 Jan 2006 15:04:05 GMT` for `d` (UTC). */
export function formatHttpDate(d: Date): string {
  return d.toUTCString();
}

/**
 * Parses an HTTP date in the three forms Go's http.ParseTime accepts (RFC 1123, RFC 850,
 * asctime); anything else is `undefined`, and callers ignore the header as Go does.
 */
export function parseHttpDate(value: string): Date | undefined {
  const m1 = /^([A-Z][a-z]{2}), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/.exec(value);
  if (m1 !== null && DAYS.includes(m1[1] ?? '')) return utc(m1[4], m1[3], m1[2], m1[5], m1[6], m1[7]);
  const m2 = /^([A-Z][a-z]+), (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/.exec(value);
  if (m2 !== null && LONG_DAYS.includes(m2[1] ?? '')) {
    const yy = Number(m2[4]);
    return utc(String(yy < 69 ? 2000 + yy : 1900 + yy), m2[3], m2[2], m2[5], m2[6], m2[7]);
  }
  const m3 = /^([A-Z][a-z]{2}) ([A-Z][a-z]{2}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/.exec(value);
  if (m3 !== null && DAYS.includes(m3[1] ?? '')) return utc(m3[7], m3[2], (m3[3] ?? '').trim(), m3[4], m3[5], m3[6]);
  return undefined;
}

function utc(...parts: Array<string | undefined>): Date | undefined {
  const [y, mon, d, h, mi, s] = parts;
  const month = MONTHS.indexOf(mon ?? '');
  const day = Number(d);
  const [hh, mm, ss] = [Number(h), Number(mi), Number(s)];
  if (month < 0 || day < 1 || day > 31 || hh > 23 || mm > 59 || ss > 60) return undefined;
  const t = Date.UTC(Number(y), month, day, hh, mm, ss);
  return Number.isNaN(t) ? undefined : new Date(t);
}

/** Outcome of evaluating conditional request headers against a resource's modification time. */
type Precondition = 'proceed' | 'not-modified' | 'precondition-failed';

/**
 * RFC 7232 evaluation as Go's ServeContent does it without an ETag: `If-Match` (other than
 * `*`) fails; else `If-Unmodified-Since` earlier than the mtime fails; `If-None-Match: *`
 * gives 304 and any other value disables `If-Modified-Since`; `If-Modified-Since` at or after
 * the mtime (whole seconds) gives 304. Unparsable dates are ignored.
 */
export function evaluatePreconditions(headers: Record<string, string | string[] | undefined>, modTime: Date): Precondition {
  const mtime = Math.floor(modTime.getTime() / 1000);
  const ifMatch = header(headers, 'if-match');
  if (ifMatch !== undefined) {
    if (!listHasStar(ifMatch)) return 'precondition-failed';
  } else {
    const ius = header(headers, 'if-unmodified-since');
    const d = ius === undefined ? undefined : parseHttpDate(ius);
    if (d !== undefined && mtime > d.getTime() / 1000) return 'precondition-failed';
  }
  const inm = header(headers, 'if-none-match');
  if (inm !== undefined) return listHasStar(inm) ? 'not-modified' : 'proceed';
  const ims = header(headers, 'if-modified-since');
  const d = ims === undefined ? undefined : parseHttpDate(ims);
  if (d !== undefined && mtime <= d.getTime() / 1000) return 'not-modified';
  return 'proceed';
}

function listHasStar(v: string): boolean {
  return v.split(',').some((t) => t.trim() === '*');
}

/** The first value of a request header, or undefined. */
export function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** One satisfiable byte range, inclusive start, exclusive end. */
interface Range {
  start: number;
  end: number;
}

/**
 * Parses a `Range` header for a resource of `size` bytes like Go's parseRange: `undefined`
 * when absent (or when the ranges add up to more than the size: Go then sends the whole body),
 * `'invalid'` for syntax errors and `'unsatisfiable'` when no range overlaps the content (both
 * 416), otherwise the satisfiable ranges.
 */
export function parseRange(value: string | undefined, size: number): Range[] | 'invalid' | 'unsatisfiable' | undefined {
  if (value === undefined || value === '') return undefined;
  if (!value.startsWith('bytes=')) return 'invalid';
  const ranges: Range[] = [];
  let noOverlap = false;
  for (const raw of value.slice(6).split(',')) {
    const spec = raw.trim();
    if (spec === '') continue;
    const dash = spec.indexOf('-');
    if (dash < 0) return 'invalid';
    const first = spec.slice(0, dash).trim();
    const last = spec.slice(dash + 1).trim();
    if (first === '') {
      if (!/^\d+$/.test(last)) return 'invalid';
      let n = Number(last);
      if (n > size) n = size;
      ranges.push({ start: size - n, end: size });
      continue;
    }
    if (!/^\d+$/.test(first)) return 'invalid';
    const start = Number(first);
    if (start >= size) {
      noOverlap = true;
      continue;
    }
    let end = size;
    if (last !== '') {
      if (!/^\d+$/.test(last)) return 'invalid';
      const l = Number(last);
      if (l < start) return 'invalid';
      end = Math.min(l + 1, size);
    }
    ranges.push({ start, end });
  }
  if (ranges.length === 0) return noOverlap ? 'unsatisfiable' : undefined;
  const total = ranges.reduce((n, r) => n + (r.end - r.start), 0);
  if (total > size) return undefined;
  return ranges;
}

/** Whether `If-Range` (no ETags: only its date form) lets a Range request proceed. */
export function ifRangeAllows(headers: Record<string, string | string[] | undefined>, modTime: Date): boolean {
  const v = header(headers, 'if-range');
  if (v === undefined) return true;
  const d = parseHttpDate(v);
  return d !== undefined && Math.floor(modTime.getTime() / 1000) === d.getTime() / 1000;
}

/** Content codings catalogd produces. */
export type Coding = 'gzip' | 'identity';

/** Picks the response coding from `Accept-Encoding`: gzip when acceptable (q > 0), else identity. */
export function negotiateCoding(acceptEncoding: string | undefined): Coding {
  if (acceptEncoding === undefined) return 'identity';
  let gzip = 0;
  for (const part of acceptEncoding.split(',')) {
    const [token, ...params] = part.trim().split(';');
    const name = (token ?? '').trim().toLowerCase();
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p);
      if (m !== null) q = Number(m[1]);
    }
    if (Number.isNaN(q)) q = 0;
    if (name === 'gzip') gzip = Math.max(gzip, q);
  }
  return gzip > 0 ? 'gzip' : 'identity';
}

/** Bodies shorter than this are never compressed (upstream's gzhttp default). */
export const MIN_COMPRESS_SIZE = 1024;
