import { describe, expect, it } from 'vitest';
import { signaturePolicyPaths } from './signature-policy.ts';

describe('signaturePolicyPaths', () => {
  it('the per-user files under $HOME first, then /etc/containers, as containers/image', () => {
    expect(signaturePolicyPaths({ HOME: '/home/op' })).toEqual({
      userPolicy: '/home/op/.config/containers/policy.json',
      userRegistriesDir: '/home/op/.config/containers/registries.d',
      systemPolicy: '/etc/containers/policy.json',
      systemRegistriesDir: '/etc/containers/registries.d',
    });
    expect(signaturePolicyPaths({ HOME: '' })).toEqual({
      systemPolicy: '/etc/containers/policy.json',
      systemRegistriesDir: '/etc/containers/registries.d',
    });
  });
});
