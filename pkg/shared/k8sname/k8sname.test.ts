import { describe, expect, it } from 'vitest';
import { dns1123LabelErrors, dns1123SubdomainErrors } from './index.ts';

describe('dns1123SubdomainErrors', () => {
  it('accepts subdomains and reports apimachinery texts otherwise', () => {
    expect(dns1123SubdomainErrors('operatorhub.io')).toEqual([]);
    expect(dns1123SubdomainErrors('Bad_Name')).toEqual([
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]);
    expect(dns1123SubdomainErrors('a'.repeat(254))).toEqual(['must be no more than 253 characters']);
    // Go counts bytes: 127 two-byte characters are 254 bytes.
    expect(dns1123SubdomainErrors('é'.repeat(127))[0]).toBe('must be no more than 253 characters');
  });
});

describe('dns1123LabelErrors', () => {
  it('distinguishes dotted names from malformed ones', () => {
    expect(dns1123LabelErrors('my-operator')).toEqual([]);
    expect(dns1123LabelErrors('my.operator')).toEqual(['must not contain dots']);
    expect(dns1123LabelErrors('-x')[0]).toMatch(/^a lowercase RFC 1123 label .*\(e\.g\. 'my-name',  or '123-abc'/);
    expect(dns1123LabelErrors('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
  });
});
