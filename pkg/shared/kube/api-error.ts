/**
 * Errors returned by the Kubernetes API server, and predicates over them. `ApiError.message` is
 * the Status `message` unchanged: the text client-go shows users.
 */

/** The `details` part of a Kubernetes `Status` object. */
interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: Array<{ reason?: string; message?: string; field?: string }>;
  retryAfterSeconds?: number;
}

/** A Kubernetes `meta/v1` Status object as returned in error bodies and watch ERROR events. */
export interface Status {
  apiVersion?: string;
  kind?: string;
  status?: string;
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

/**
 * A failed API call: `status` is the HTTP (or watch ERROR) code, `reason` the Status reason (''
 * when none), `message` the Status message or a description of a non-Status body.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly reason: string;
  readonly details: StatusDetails | undefined;
  /** The full Status body when the server sent one. */
  readonly body: Status | undefined;

  constructor(status: number, reason: string, message: string, details?: StatusDetails, body?: Status) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.reason = reason;
    this.details = details;
    this.body = body;
  }
}

/** An ApiError from an HTTP status code and the read body (a Status, or any body summarised). */
export function apiErrorFromResponse(httpStatus: number, body: unknown, context: string): ApiError {
  if (isStatusObject(body)) return apiErrorFromStatus(body, httpStatus);
  const text = typeof body === 'string' ? body.trim().slice(0, 512) : '';
  const reason = reasonForCode(httpStatus);
  const detail = text === '' ? `the server responded with HTTP ${httpStatus}` : text;
  return new ApiError(httpStatus, reason, `${context}: ${detail}`);
}

/** Builds an ApiError from a Status object; `fallbackCode` is used when it carries no `code`. */
export function apiErrorFromStatus(status: Status, fallbackCode = 500): ApiError {
  const code = typeof status.code === 'number' && status.code > 0 ? status.code : fallbackCode;
  const reason = status.reason ?? reasonForCode(code);
  const message = status.message ?? `the server reported ${reason || `HTTP ${code}`}`;
  return new ApiError(code, reason, message, status.details, status);
}

/** True when `body` looks like a `meta/v1` Status object. */
function isStatusObject(body: unknown): body is Status {
  return typeof body === 'object' && body !== null && (body as { kind?: unknown }).kind === 'Status';
}

// Reasons the API server implies for bare HTTP codes (apimachinery's reasonForCode), used
// when a proxy or an old server sends no Status body.
const REASON_FOR_CODE: Readonly<Record<number, string>> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Gone',
  422: 'Invalid',
  429: 'TooManyRequests',
};

function reasonForCode(code: number): string {
  return REASON_FOR_CODE[code] ?? '';
}

// An ApiError with `reason`, or with HTTP status `code` (only when it carries no reason, unless
// `anyReason`: a 409 may be AlreadyExists, not Conflict).
function matches(err: unknown, reason: string, code: number, anyReason: boolean): boolean {
  if (!(err instanceof ApiError)) return false;
  return err.reason === reason || (err.status === code && (anyReason || err.reason === ''));
}

/** True for 404 NotFound. */
export function isNotFound(err: unknown): boolean {
  return matches(err, 'NotFound', 404, false);
}

/** True for 409 AlreadyExists (a create of an existing object). */
export function isAlreadyExists(err: unknown): boolean {
  return err instanceof ApiError && err.reason === 'AlreadyExists';
}

/** True for 409 Conflict (optimistic-concurrency failure), not for AlreadyExists. */
export function isConflict(err: unknown): boolean {
  return matches(err, 'Conflict', 409, false);
}

/** True for 410 Gone / Expired: a watch or list resourceVersion that is too old. */
export function isGone(err: unknown): boolean {
  return matches(err, 'Gone', 410, true) || (err instanceof ApiError && err.reason === 'Expired');
}

/** True for 403 Forbidden (RBAC denied the request). */
export function isForbidden(err: unknown): boolean {
  return matches(err, 'Forbidden', 403, true);
}

/** True for 401 Unauthorized (credentials missing, expired or unknown to the server). */
export function isUnauthorized(err: unknown): boolean {
  return matches(err, 'Unauthorized', 401, true);
}

/** True for 422 Invalid (the object failed validation). */
export function isInvalid(err: unknown): boolean {
  return matches(err, 'Invalid', 422, true);
}
