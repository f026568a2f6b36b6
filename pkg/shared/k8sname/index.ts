/**
 * Kubernetes' name validation (apimachinery `IsDNS1123Subdomain`, `IsDNS1123Label`) with its
 * exact messages, which upstream embeds in catalogd's 400 bodies, opm's validation output and
 * the renderer's refusals. Lengths are counted in UTF-8 bytes, as Go's `len` does.
 */

const LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const SUBDOMAIN_FMT = `${LABEL_FMT}(\\.${LABEL_FMT})*`;
const LABEL = new RegExp(`^${LABEL_FMT}$`);
const SUBDOMAIN = new RegExp(`^${SUBDOMAIN_FMT}$`);
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

/** Problems with `value` as a DNS-1123 subdomain (at most 253 bytes); empty when valid. */
export function dns1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(value) > 253) errs.push('must be no more than 253 characters');
  if (!SUBDOMAIN.test(value)) errs.push(`${SUBDOMAIN_MSG} (e.g. 'example.com', regex used for validation is '${SUBDOMAIN_FMT}')`);
  return errs;
}

/** Problems with `value` as a DNS-1123 label (at most 63 bytes, no dots); empty when valid. */
export function dns1123LabelErrors(value: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(value) > 63) errs.push('must be no more than 63 characters');
  if (!LABEL.test(value)) {
    if (SUBDOMAIN.test(value)) errs.push('must not contain dots');
    // The example list has two spaces before "or": an artefact of apimachinery's message builder.
    else errs.push(`${LABEL_MSG} (e.g. 'my-name',  or '123-abc', regex used for validation is '${LABEL_FMT}')`);
  }
  return errs;
}
