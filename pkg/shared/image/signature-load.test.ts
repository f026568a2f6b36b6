import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpTransport } from './http-transport.ts';
import { parseNormalized } from './reference.ts';
import { SignaturePolicyRejectedError, signaturePolicyCheck } from './signature-check.ts';
import {
  MAX_CONFIG_BYTES,
  httpLookasideReader,
  loadPolicy,
  loadRegistriesD,
  lookasideSignatures,
  type SignaturePolicyPaths,
} from './signature-load.ts';
import type { RegistriesD } from './signature-registries-d.ts';

let dir: string;
let paths: SignaturePolicyPaths;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sigpolicy-load-'));
  paths = {
    userPolicy: join(dir, 'home/policy.json'),
    systemPolicy: join(dir, 'etc/policy.json'),
    userRegistriesDir: join(dir, 'home/registries.d'),
    systemRegistriesDir: join(dir, 'etc/registries.d'),
  };
  await mkdir(join(dir, 'home'));
  await mkdir(join(dir, 'etc'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const REJECT = '{"default": [{"type": "reject"}]}';
const ACCEPT = '{"default": [{"type": "insecureAcceptAnything"}]}';

describe('loadPolicy', () => {
  it('none: undefined (the caller accepts anything, as upstream)', async () => {
    expect(await loadPolicy(paths)).toBeUndefined();
  });

  it('the per-user file wins while it exists, else the system file', async () => {
    await writeFile(paths.systemPolicy, REJECT);
    expect((await loadPolicy(paths))?.file).toBe(paths.systemPolicy);
    await writeFile(paths.userPolicy ?? '', ACCEPT);
    expect(await loadPolicy(paths)).toMatchObject({ file: paths.userPolicy, policy: { default: [{ type: 'insecureAcceptAnything' }] } });
  });

  it('a malformed, oversized or unreadable file is an error naming it, never a fallback', async () => {
    await writeFile(paths.systemPolicy, '{"default": [{"type": "accept"}]}');
    await expect(loadPolicy(paths)).rejects.toThrow(`invalid policy in "${paths.systemPolicy}": Unknown policy requirement type "accept"`);
    await writeFile(paths.systemPolicy, `{"default": [{"type": "reject"}], "x": "${'a'.repeat(MAX_CONFIG_BYTES)}"}`);
    await expect(loadPolicy(paths)).rejects.toThrow(`invalid policy in "${paths.systemPolicy}": file is larger than ${MAX_CONFIG_BYTES} bytes`);
    await rm(paths.systemPolicy);
    await mkdir(paths.systemPolicy);
    await expect(loadPolicy(paths)).rejects.toThrow(`invalid policy in "${paths.systemPolicy}": EISDIR`);
  });
});

describe('registries.d and lookaside signatures', () => {
  it('reads *.yaml of the per-user directory when it exists, else the system one', async () => {
    await mkdir(paths.systemRegistriesDir);
    await writeFile(join(paths.systemRegistriesDir, 'a.yaml'), 'default-docker:\n  lookaside: file:///system\n');
    await writeFile(join(paths.systemRegistriesDir, 'ignored.yml'), 'not: [valid\n');
    expect((await loadRegistriesD(paths)).defaultDocker?.lookaside).toBe('file:///system');
    await mkdir(paths.userRegistriesDir ?? '');
    expect((await loadRegistriesD(paths)).defaultDocker).toBeUndefined();
  });

  it('reads signature-1.. until the first missing one, from file://', async () => {
    const ref = parseNormalized('quay.io/ns/app:v1');
    const digest = `sha256:${'e'.repeat(64)}`;
    const sigDir = join(dir, 'sigs/ns', `app@sha256=${'e'.repeat(64)}`);
    await mkdir(sigDir, { recursive: true });
    await writeFile(join(sigDir, 'signature-1'), 'one');
    await writeFile(join(sigDir, 'signature-2'), 'two');
    await writeFile(join(sigDir, 'signature-4'), 'after a gap');
    const config = { defaultDocker: { lookaside: `file://${join(dir, 'sigs')}` }, docker: new Map() };
    const sigs = await lookasideSignatures(config, { ref, digest }, undefined);
    expect(sigs.map((s) => Buffer.from(s).toString())).toEqual(['one', 'two']);
    expect(await lookasideSignatures({ docker: new Map() }, { ref, digest }, undefined)).toEqual([]);
  });

  it('reads http(s) lookasides through the injected transport until a 404; another status is an error', async () => {
    const ref = parseNormalized('quay.io/ns/app:v1');
    const digest = `sha256:${'f'.repeat(64)}`;
    const served: string[] = [];
    let mode: 'ok' | 'error' = 'ok';
    const server = await listen((req, res) => {
      served.push(req.url ?? '');
      if (mode === 'error') return res.writeHead(500, 'Boom').end();
      if (req.url?.endsWith('signature-1') === true) return res.end('first');
      return res.writeHead(404).end();
    });
    const transport = new HttpTransport();
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    try {
      const base = `${server.url}/sigs`;
      const config = { docker: new Map([['quay.io/ns', { lookaside: base }]]) };
      const sigs = await lookasideSignatures(config, { ref, digest }, httpLookasideReader(transport));
      expect(sigs.map((x) => Buffer.from(x).toString())).toEqual(['first']);
      expect(served).toEqual([`/sigs/ns/app@sha256=${'f'.repeat(64)}/signature-1`, `/sigs/ns/app@sha256=${'f'.repeat(64)}/signature-2`]);
      mode = 'error';
      await expect(lookasideSignatures(config, { ref, digest }, httpLookasideReader(transport))).rejects.toThrow(
        `reading signature from ${base}/ns/app@sha256=${'f'.repeat(64)}/signature-1: status 500 (Boom)`,
      );
      // without an injected reader nothing is fetched
      await expect(lookasideSignatures(config, { ref, digest }, undefined)).rejects.toThrow(/no HTTP client configured for lookaside signatures/);
      expect(fetchSpy).not.toHaveBeenCalled();
    } finally {
      fetchSpy.mockRestore();
      transport.close();
      await server.close();
    }
  });

  it('uses the transport settings: a lookaside only reachable through the configured proxy is read', async () => {
    const proxied: string[] = [];
    const proxy = await listen((req, res) => {
      proxied.push(req.url ?? '');
      if (req.url?.endsWith('/signature-1') === true) return res.end('via proxy');
      return res.writeHead(404).end();
    });
    const proxyUrl = new URL(proxy.url);
    const transport = new HttpTransport({ proxy: () => proxyUrl });
    try {
      const ref = parseNormalized('quay.io/ns/app:v1');
      const digest = `sha256:${'a'.repeat(64)}`;
      const config = { docker: new Map([['quay.io', { lookaside: 'http://lookaside.invalid/sigs' }]]) };
      const sigs = await lookasideSignatures(config, { ref, digest }, httpLookasideReader(transport));
      expect(sigs.map((x) => Buffer.from(x).toString())).toEqual(['via proxy']);
      expect(proxied[0]).toBe(`http://lookaside.invalid/sigs/ns/app@sha256=${'a'.repeat(64)}/signature-1`);
    } finally {
      transport.close();
      await proxy.close();
    }
  });

  describe('a hostile lookaside server', () => {
    const ref = parseNormalized('quay.io/ns/app:v1');
    const digest = `sha256:${'b'.repeat(64)}`;
    let server: Listening;
    let transport: HttpTransport;
    let mode: 'silent' | 'drip' | 'declared-huge' | 'chunked-huge';
    const pending: ServerResponse[] = [];

    beforeEach(async () => {
      server = await listen((req, res) => {
        if (req.url?.endsWith('/signature-1') !== true) return res.writeHead(404).end();
        pending.push(res);
        if (mode === 'silent') return undefined; // headers never come
        if (mode === 'declared-huge') return res.writeHead(200, { 'content-length': String(64 << 20) }).write('x');
        res.writeHead(200);
        if (mode === 'chunked-huge') {
          const chunk = Buffer.alloc(64 << 10, 'y');
          const pump = (): void => {
            while (!res.destroyed && res.write(chunk));
            if (!res.destroyed) res.once('drain', pump);
          };
          return pump();
        }
        // drip: a byte now and then, forever; the socket never goes idle long enough for the read timeout
        const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write('z')), 20);
        return undefined;
      });
      transport = new HttpTransport({ timeoutMs: 30_000 });
    });
    afterEach(async () => {
      for (const res of pending.splice(0)) res.destroy();
      transport.close();
      await server.close();
    });

    const config = (): RegistriesD => ({ docker: new Map([['quay.io/ns', { lookaside: `${server.url}/sigs` }]]) });
    const sigUrl = (): string => `${server.url}/sigs/ns/app@sha256=${'b'.repeat(64)}/signature-1`;

    it('a server that never answers, or drips its answer, is cut at the deadline with an error naming the URL', async () => {
      const read = httpLookasideReader(transport, { timeoutMs: 300 });
      mode = 'silent';
      await expect(lookasideSignatures(config(), { ref, digest }, read)).rejects.toThrow(
        `reading signature from ${sigUrl()}: no complete answer within 300 ms`,
      );
      mode = 'drip';
      await expect(lookasideSignatures(config(), { ref, digest }, read)).rejects.toThrow(
        `reading signature from ${sigUrl()}: no complete answer within 300 ms`,
      );
    });

    it('an oversized answer, declared or streamed, is refused', async () => {
      const read = httpLookasideReader(transport, { maxBytes: 1024 });
      mode = 'declared-huge';
      await expect(lookasideSignatures(config(), { ref, digest }, read)).rejects.toThrow(`reading signature from ${sigUrl()}: exceeds 1024 bytes`);
      mode = 'chunked-huge';
      await expect(lookasideSignatures(config(), { ref, digest }, read)).rejects.toThrow(`reading signature from ${sigUrl()}: exceeds 1024 bytes`);
    });

    it('through the policy check the image is refused, never accepted', async () => {
      mode = 'drip';
      await writeFile(paths.systemPolicy, JSON.stringify({ default: [{ type: 'signedBy', keyType: 'GPGKeys', keyData: 'AAAA' }] }));
      await mkdir(paths.systemRegistriesDir);
      await writeFile(
        join(paths.systemRegistriesDir, 'l.yaml'),
        `docker:
  quay.io/ns:
    lookaside: ${server.url}/sigs
`,
      );
      const check = signaturePolicyCheck(paths, { lookasideHttp: httpLookasideReader(transport, { timeoutMs: 300 }) });
      const refused = check({ ref, digest, name: 'quay.io/ns/app:v1' });
      await expect(refused).rejects.toBeInstanceOf(SignaturePolicyRejectedError);
      await expect(refused).rejects.toThrow(`Source image rejected: reading signature from ${sigUrl()}: no complete answer within 300 ms`);
    });
  });
});

interface Listening {
  url: string;
  close(): Promise<void>;
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => unknown): Promise<Listening> {
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
