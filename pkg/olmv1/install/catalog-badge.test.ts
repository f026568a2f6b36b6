import { describe, expect, it } from 'vitest';
import { CATALOG_DISPLAY_NAME_ANNOTATION, CATALOG_SOURCE_TYPE_ANNOTATION, catalogBadge } from './catalog-badge.ts';

describe('catalog badge', () => {
  it("takes the administrator's display name and source type from the ClusterCatalog's annotations", () => {
    expect(catalogBadge('c', { [CATALOG_DISPLAY_NAME_ANNOTATION]: '  Our   Community ', [CATALOG_SOURCE_TYPE_ANNOTATION]: 'community' })).toEqual({
      name: 'c',
      displayName: 'Our Community',
      sourceType: 'Community',
      needsAcknowledgement: true,
    });
    expect(catalogBadge('c', { [CATALOG_SOURCE_TYPE_ANNOTATION]: 'Uncertified' }).needsAcknowledgement).toBe(true);
    expect(catalogBadge('c', { [CATALOG_SOURCE_TYPE_ANNOTATION]: 'red-hat' }).sourceType).toBe('Red Hat');
    expect(catalogBadge('c', { [CATALOG_SOURCE_TYPE_ANNOTATION]: 'Certified' })).toMatchObject({
      sourceType: 'Certified',
      needsAcknowledgement: false,
    });
  });
  it("is Custom under its own name without annotations or with an unknown type, except OpenShift's default catalogs", () => {
    expect(catalogBadge('mine', undefined)).toEqual({ name: 'mine', displayName: 'mine', sourceType: 'Custom', needsAcknowledgement: false });
    expect(catalogBadge('mine', { [CATALOG_SOURCE_TYPE_ANNOTATION]: '<script>' }).sourceType).toBe('Custom');
    expect(catalogBadge('openshift-community-operators', {})).toMatchObject({ displayName: 'Community Operators', needsAcknowledgement: true });
    expect(catalogBadge('openshift-community-operators', { [CATALOG_SOURCE_TYPE_ANNOTATION]: 'Custom' }).needsAcknowledgement).toBe(false);
    expect(catalogBadge('openshift-redhat-operators', {}).sourceType).toBe('Red Hat');
  });
  it('clips a long display name', () => {
    expect(catalogBadge('c', { [CATALOG_DISPLAY_NAME_ANNOTATION]: 'x'.repeat(1000) }).displayName).toHaveLength(63);
  });
});
