import { describe, expect, it } from 'vitest';
import { matchRoute, route } from './routes.ts';

const noop = async (): Promise<void> => undefined;
const table = [
  route({ method: 'GET', path: '/api/extensions', handle: noop }),
  route({ method: 'GET', path: '/api/extensions/:name', handle: noop }),
  route({ method: 'POST', path: '/api/extensions/:name/approve', handle: noop }),
  route({ method: 'GET', path: '/api/packages/:catalog/:pkg/rbac', handle: noop }),
];

describe('matchRoute', () => {
  it('finds the route of a path and method with its parameters decoded', () => {
    const m = matchRoute(table, 'GET', '/api/packages/my%20catalog/pkg/rbac');
    expect(m.ok && m.route.path).toBe('/api/packages/:catalog/:pkg/rbac');
    expect(m.ok && m.params).toEqual({ catalog: 'my catalog', pkg: 'pkg' });
    const a = matchRoute(table, 'POST', '/api/extensions/argocd/approve');
    expect(a.ok && [a.route.path, a.params]).toEqual(['/api/extensions/:name/approve', { name: 'argocd' }]);
  });

  it('answers HEAD with the GET route', () => {
    expect(matchRoute(table, 'HEAD', '/api/extensions').ok).toBe(true);
  });

  it('tells an unknown path (404) from a method the path does not take (405)', () => {
    expect(matchRoute(table, 'GET', '/api/nothing')).toEqual({ ok: false, status: 404 });
    expect(matchRoute(table, 'GET', '/api/extensions/argocd/approve')).toEqual({ ok: false, status: 405 });
    expect(matchRoute(table, 'DELETE', '/api/extensions/argocd')).toEqual({ ok: false, status: 405 });
  });

  it('matches a parameter to one non-empty, validly encoded segment only', () => {
    expect(matchRoute(table, 'GET', '/api/extensions/')).toEqual({ ok: false, status: 404 });
    expect(matchRoute(table, 'GET', '/api/extensions/a/b')).toEqual({ ok: false, status: 404 });
    expect(matchRoute(table, 'GET', '/api/extensions/%E0%A4%A')).toEqual({ ok: false, status: 404 });
  });
});
