/**
 * The extension page's "Create instance" routes (issue 71): the examples its installed bundle
 * offers, and an edited object written as the user, first as a server-side dry run (the API
 * server checks it against the CRD's schema, unknown fields refused) and then for real. Only
 * kinds the installed bundle provides are written: this is not a general apply.
 */
import { z } from 'zod';
import { json } from './api-routes.ts';
import { validName } from './admin.ts';
import { instanceExamples, parseInstance } from './instances.ts';
import { route, type Route } from './routes.ts';
import type { ConsoleCatalog, ConsoleSources } from './sources.ts';

const NOT_AN_EXTENSION = { error: 'not a ClusterExtension name' };
const instanceBody = z.object({
  yaml: z.string({ error: 'yaml: the object to create' }),
  dryRun: z.boolean().optional(),
});

interface InstanceContext {
  sources: Pick<ConsoleSources, 'getExtension' | 'objectScope' | 'createObject'>;
  catalogs(): Promise<{ catalogs: Map<string, ConsoleCatalog> }>;
}

interface Installed {
  namespace: string;
  apis: { apiVersion: string; kind: string }[];
  examples: { apiVersion: string; kind: string; yaml: string }[];
}

/** The installed bundle of extension `name` and what it offers, from the first catalog that has that bundle; undefined: none installed or found. */
async function installedOffer(c: InstanceContext, name: string, signal: AbortSignal): Promise<Installed | undefined> {
  const ce = (await c.sources.getExtension(name, signal)) as {
    spec?: { namespace?: string; source?: { catalog?: { packageName?: string } } };
    status?: { install?: { bundle?: { name?: string } } };
  };
  const pkg = ce.spec?.source?.catalog?.packageName ?? '';
  const bundle = ce.status?.install?.bundle?.name ?? '';
  if (pkg === '' || bundle === '') return undefined;
  for (const cat of (await c.catalogs()).catalogs.values()) {
    if (!cat.packageNames.includes(pkg)) continue;
    const found = instanceExamples(await cat.load(pkg), pkg, bundle);
    if (found !== undefined) return { namespace: ce.spec?.namespace ?? '', ...found };
  }
  return undefined;
}

/** The routes over the console's sources and catalogs. */
export function instanceRoutes(c: InstanceContext): Route[] {
  const read = (): AbortSignal => AbortSignal.timeout(60_000);
  return [
    route({
      method: 'GET',
      path: '/api/extensions/:name/examples',
      handle: async ({ res, params }) => {
        const name = params.name ?? '';
        if (!validName(name)) return json(res, 400, NOT_AN_EXTENSION);
        const offer = await installedOffer(c, name, read());
        json(res, 200, offer === undefined ? { namespace: '', apis: [], examples: [] } : offer);
      },
    }),
    route({
      method: 'POST',
      path: '/api/extensions/:name/instances',
      body: instanceBody,
      handle: async ({ res, params, body }) => {
        const name = params.name ?? '';
        if (!validName(name)) return json(res, 400, NOT_AN_EXTENSION);
        const { createObject, objectScope } = c.sources;
        if (createObject === undefined || objectScope === undefined) return json(res, 501, { error: 'this console cannot create instances' });
        const signal = read();
        const offer = await installedOffer(c, name, signal);
        if (offer === undefined) return json(res, 409, { error: `ClusterExtension ${name} has no installed bundle a catalog serves` });
        const parsed = parseInstance(body.yaml, offer.apis);
        if (!parsed.ok) return json(res, 400, { error: parsed.error });
        const obj = parsed.object;
        const namespaced = await objectScope({ apiVersion: obj.apiVersion, kind: obj.kind }, signal);
        const meta = { ...obj.metadata };
        if (namespaced && (meta.namespace ?? '') === '') meta.namespace = offer.namespace;
        if (!namespaced) delete meta.namespace;
        const dryRun = body.dryRun === true;
        await createObject({ ...obj, metadata: meta }, dryRun, signal);
        const where = namespaced ? `${meta.namespace ?? ''}/${meta.name ?? ''}` : (meta.name ?? '');
        json(res, dryRun ? 200 : 201, { [dryRun ? 'valid' : 'created']: `${obj.kind} ${where}` });
      },
    }),
  ];
}
