/**
 * Errors returned by the Kubernetes API server, and predicates over them.
 *
 * The API server answers failures with a `Status` object (`kind: Status`, `reason`, `message`,
 * `details`, `code`). `ApiError.message` is the Status `message` unchanged, because that is the
 * text upstream (client-go) shows users, e.g. `deployments.apps "x" is forbidden: User ...`.
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

/** Status reasons we branch on (values of `Status.reason`, apimachinery `StatusReason*`). */
const StatusReason = {
  NotFound: 'NotFound',
  AlreadyExists: 'AlreadyExists',
  Conflict: 'Conflict',
  Gone: 'Gone',
  Expired: 'Expired',
  Forbidden: 'Forbidden',
  Unauthorized: 'Unauthorized',
  Invalid: 'Invalid',
  TooManyRequests: 'TooManyRequests',
} as const;

/**
 * A failed API call. `status` is the HTTP status code (or the Status `code` of a watch ERROR
 * event), `reason` the Status reason ('' when the server sent none), `message` the Status message
 * (or, for non-Status bodies, a short description of the response).
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

/**
 * Builds an ApiError from an HTTP status code and the (already read) response body.
 * A body that is a Status object supplies reason/message/details; any other body is
 * summarised so the error still says what went wrong.
 */
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

// Reasons the API server implies for bare HTTP codes (apimachinery's
// reasonForCode), used when a proxy or an old server sends no Status body.
function reasonForCode(code: number): string {
  switch (code) {
    case 401:
      return StatusReason.Unauthorized;
    case 403:
      return StatusReason.Forbidden;
    case 404:
      return StatusReason.NotFound;
    case 409:
      return StatusReason.Conflict;
    case 410:
      return StatusReason.Gone;
    case 422:
      return StatusReason.Invalid;
    case 429:
      return StatusReason.TooManyRequests;
    default:
      return '';
  }
}

function asApiError(err: unknown): ApiError | undefined {
  return err instanceof ApiError ? err : undefined;
}

/** True for 404 NotFound. */
export function isNotFound(err: unknown): boolean {
  const e = asApiError(err);
  return e !== undefined && (e.reason === StatusReason.NotFound || (e.reason === '' && e.status === 404));
}

/** True for 409 AlreadyExists (a create of an existing object). */
export function isAlreadyExists(err: unknown): boolean {
  return asApiError(err)?.reason === StatusReason.AlreadyExists;
}

/** True for 409 Conflict (optimistic-concurrency failure), not for AlreadyExists. */
export function isConflict(err: unknown): boolean {
  const e = asApiError(err);
  return e !== undefined && (e.reason === StatusReason.Conflict || (e.reason === '' && e.status === 409));
}

/** True for 410 Gone / Expired: a watch or list resourceVersion that is too old. */
export function isGone(err: unknown): boolean {
  const e = asApiError(err);
  if (e === undefined) return false;
  return e.status === 410 || e.reason === StatusReason.Gone || e.reason === StatusReason.Expired;
}

/** True for 403 Forbidden (RBAC denied the request). */
export function isForbidden(err: unknown): boolean {
  const e = asApiError(err);
  return e !== undefined && (e.reason === StatusReason.Forbidden || e.status === 403);
}

/** True for 401 Unauthorized (credentials missing, expired or unknown to the server). */
export function isUnauthorized(err: unknown): boolean {
  const e = asApiError(err);
  return e !== undefined && (e.reason === StatusReason.Unauthorized || e.status === 401);
}

/** True for 422 Invalid (the object failed validation). */
export function isInvalid(err: unknown): boolean {
  const e = asApiError(err);
  return e !== undefined && (e.reason === StatusReason.Invalid || e.status === 422);
}
