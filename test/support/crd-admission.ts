/**
 * Helpers of the CRD admission suites (test/integration/crds-*.test.ts): install the CRDs on
 * the shared control plane, build objects, send server-side dry runs and assert the API
 * server's verdicts (status 422 with a cause naming the field and upstream's message).
 * `useCrds()` registers the suite's set-up and clean-up hooks.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { load } from 'js-yaml';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { CLUSTER_CATALOG, CLUSTER_EXTENSION, GROUP, VERSION } from '../../pkg/shared/api/index.ts';
import { kubeRequest, type ControlPlaneInfo } from '../envtest/index.ts';
import { kubectlWaitEstablished } from './crd-established.ts';

export type Json = Record<string, unknown>;

// The API server's answer: status code and parsed JSON body.
export interface ApiResponse {
  status: number;
  body: Json;
}

let cp: ControlPlaneInfo;

export async function send(method: string, path: string, body?: unknown): Promise<ApiResponse> {
  const res = await kubeRequest(cp, { method, path, body, auth: { token: cp.adminToken } });
  return { status: res.status, body: res.body === '' ? {} : res.json<Json>() };
}

const root = (path: string): string => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const run = `crds-${randomBytes(3).toString('hex')}`;
let seq = 0;
export const uniqueName = (): string => `${run}-${++seq}`;

const created: string[] = [];

/** Registers hooks: apply config/crd and wait for Established; delete created objects after. */
export function useCrds(): void {
  beforeAll(installCrds);
  afterAll(async () => {
    for (const path of created.splice(0)) await send('DELETE', path);
  });
}

async function installCrds(): Promise<void> {
  cp = inject('envtestControlPlane');
  const exec = promisify(execFile);
  const base = ['--kubeconfig', cp.kubeconfigPath];
  await exec(cp.kubectl, [...base, 'apply', '--server-side', '--force-conflicts', '-f', root('config/crd')]);
  const crds = [CLUSTER_EXTENSION.crdName, CLUSTER_CATALOG.crdName].map((n) => `crd/${n}`);
  await kubectlWaitEstablished((args) => exec(cp.kubectl, [...base, ...args]), crds);
}

export const collection = (plural: string): string => `/apis/${GROUP}/${VERSION}/${plural}`;
export const ceBase = { namespace: 'default', serviceAccount: { name: 'installer' } };
export const catalogSource = (catalog: Json): Json => ({ sourceType: 'Catalog', catalog: { packageName: 'pkg', ...catalog } });
export const ceSpec = (catalog: Json = {}): Json => ({ ...ceBase, source: catalogSource(catalog) });
export const imageSpec = (image: Json): Json => ({ source: { type: 'Image', image } });

export function object(kind: string, spec: Json | undefined): Json {
  const metadata = { name: uniqueName() };
  return { apiVersion: `${GROUP}/${VERSION}`, kind, metadata, ...(spec === undefined ? {} : { spec }) };
}
export const extension = (spec: Json | undefined): Json => object(CLUSTER_EXTENSION.kind, spec);
export const catalog = (spec: Json | undefined): Json => object(CLUSTER_CATALOG.kind, spec);

function pluralOf(obj: Json): string {
  return obj.kind === CLUSTER_EXTENSION.kind ? CLUSTER_EXTENSION.plural : CLUSTER_CATALOG.plural;
}

export function dryRunCreate(obj: Json): Promise<ApiResponse> {
  return send('POST', `${collection(pluralOf(obj))}?dryRun=All`, obj);
}

export async function createForReal(obj: Json): Promise<Json> {
  const path = collection(pluralOf(obj));
  const res = await send('POST', path, obj);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  created.push(`${path}/${(obj.metadata as Json).name as string}`);
  return res.body;
}

export function dryRunUpdate(obj: Json, subresource = ''): Promise<ApiResponse> {
  const name = (obj.metadata as Json).name as string;
  return send('PUT', `${collection(pluralOf(obj))}/${name}${subresource}?dryRun=All`, obj);
}

// The API server's Invalid status lists one cause per failed rule: `field` and a message that
// ends with the rule's own message.
export interface Cause {
  field?: string;
  message?: string;
}

export function causes(res: ApiResponse): Cause[] {
  return ((res.body.details as Json | undefined)?.causes as Cause[] | undefined) ?? [];
}

export function expectAccepted(res: ApiResponse): void {
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
}

export function expectRejected(res: ApiResponse, field: string, message: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  const matching = causes(res).filter((c) => c.field === field && c.message?.includes(message));
  expect(matching, JSON.stringify(causes(res))).not.toHaveLength(0);
  // What kubectl prints to the user contains the rule's message too.
  expect(res.body.message).toContain(message);
}

export interface Case {
  name: string;
  obj: () => Json;
  reject?: { field: string; message: string };
}

export function table(cases: Case[]): void {
  for (const c of cases) {
    it(c.reject === undefined ? `accepts ${c.name}` : `rejects ${c.name}`, async () => {
      const res = await dryRunCreate(c.obj());
      if (c.reject === undefined) expectAccepted(res);
      else expectRejected(res, c.reject.field, c.reject.message);
    });
  }
}

export function samples(): Json[] {
  return ['olm_v1_clustercatalog.yaml', 'olm_v1_clusterextension.yaml'].map((f) => load(readFileSync(root(`config/samples/${f}`), 'utf8')) as Json);
}
