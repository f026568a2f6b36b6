/**
 * Changing the version or channels an installed extension asks for, from its page (issue 71,
 * OperatorHub's "change channel or version after install"): `olmv1 update`'s service
 * (pkg/olmv1/update) as the user: what it asks for now, and the change previewed (a dry run that
 * lists each field's old and new value) or written by one tested JSON patch.
 */
import { z } from 'zod';
import { json } from './api-routes.ts';
import { validName } from './admin.ts';
import { route, type Route } from './routes.ts';
import type { ConsoleSources } from './sources.ts';

const NOT_AN_EXTENSION = { error: 'not a ClusterExtension name' };
const updateBody = z.object({
  /** A version or range; "" allows every version. */
  version: z.string().max(256, 'version: at most 256 characters'),
  /** Channels separated by commas; "" every channel. */
  channels: z.string().max(2048, 'channels: at most 2048 characters'),
  dryRun: z.boolean(),
});

/** The routes over the console's sources. */
export function updateRoutes(sources: Pick<ConsoleSources, 'getExtension' | 'updateExtension'>): Route[] {
  const read = (): AbortSignal => AbortSignal.timeout(60_000);
  return [
    route({
      method: 'GET',
      path: '/api/extensions/:name/source',
      handle: async ({ res, params }) => {
        const name = params.name ?? '';
        if (!validName(name)) return json(res, 400, NOT_AN_EXTENSION);
        const ce = (await sources.getExtension(name, read())) as { spec?: { source?: { catalog?: { version?: unknown; channels?: unknown } } } };
        const catalog = ce.spec?.source?.catalog ?? {};
        json(res, 200, {
          version: typeof catalog.version === 'string' ? catalog.version : '',
          channels: Array.isArray(catalog.channels) ? catalog.channels.filter((c): c is string => typeof c === 'string') : [],
        });
      },
    }),
    route({
      method: 'POST',
      path: '/api/extensions/:name/update',
      body: updateBody,
      handle: async ({ res, params, body }) => {
        const name = params.name ?? '';
        if (!validName(name)) return json(res, 400, NOT_AN_EXTENSION);
        const update = sources.updateExtension;
        if (update === undefined) return json(res, 501, { error: 'this console cannot run olmv1 update' });
        const version = body.version.trim();
        const channels = body.channels
          .split(',')
          .map((c) => c.trim())
          .filter((c) => c !== '');
        const result = await update(
          name,
          { version: version === '' ? null : version, channels: channels.length === 0 ? null : channels },
          body.dryRun,
        );
        if (!result.ok) return json(res, 422, { error: result.error });
        json(res, 200, result);
      },
    }),
  ];
}
