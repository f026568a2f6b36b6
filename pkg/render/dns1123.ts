/**
 * Kubernetes' `IsDNS1123Subdomain` with its exact messages (apimachinery validation).
 */

const LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const SUBDOMAIN_FMT = `${LABEL}(\\.${LABEL})*`;
const SUBDOMAIN = new RegExp(`^${SUBDOMAIN_FMT}$`);
const MAX_LENGTH = 253;

/** Problems with `value` as a DNS-1123 subdomain (empty when valid), in Kubernetes' order. */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(value) > MAX_LENGTH) errs.push(`must be no more than ${MAX_LENGTH} characters`);
  if (!SUBDOMAIN.test(value)) {
    errs.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character " +
        `(e.g. 'example.com', regex used for validation is '${SUBDOMAIN_FMT}')`,
    );
  }
  return errs;
}
