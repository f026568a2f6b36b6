import { describe, expect, it } from 'vitest';
import { HttpTransport } from './http-transport.ts';

describe('HttpTransport insecure registries', () => {
  const t = new HttpTransport({ insecureRegistries: ['127.0.0.1', 'Registry.Test:5000'] });

  it('matches host:port entries exactly and port-less entries on any port', () => {
    expect(t.isInsecure('127.0.0.1:5000')).toBe(true);
    expect(t.isInsecure('127.0.0.1')).toBe(true);
    expect(t.isInsecure('registry.test:5000')).toBe(true);
    expect(t.isInsecure('registry.test:5001')).toBe(false);
    expect(t.isInsecure('registry.test')).toBe(false);
    expect(t.isInsecure('127.0.0.2:5000')).toBe(false);
  });

  it('uses plain HTTP only for insecure registries', () => {
    expect(t.apiBase('127.0.0.1:41000').toString()).toBe('http://127.0.0.1:41000/v2/');
    expect(t.apiBase('quay.io').toString()).toBe('https://quay.io/v2/');
    t.close();
  });
});
