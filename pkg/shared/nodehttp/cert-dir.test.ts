import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { caDirPem, checkRegistryCertDir, readCaDir, registryCertDir } from './cert-dir.ts';

const fixture = (name: string): string => readFileSync(new URL(`../../../test/fixtures/tls/${name}`, import.meta.url), 'utf8');
const CA = fixture('ca.crt');
const SERVER = fixture('server.crt');
const CLIENT = fixture('client.crt');
const CLIENT_KEY = fixture('client.key');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cert-dir-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (path: string, text: string): void => {
  mkdirSync(join(dir, path, '..'), { recursive: true });
  writeFileSync(join(dir, path), text);
};
const url = (host: string): URL => new URL(`https://${host}/v2/`);

describe('registryCertDir', () => {
  it("trusts the directory's *.crt for every registry and a host subdirectory's for that host only", () => {
    write('ca.crt', `junk before\n${CA}`);
    write('notes.txt', SERVER);
    write('quay.io/extra.crt', SERVER);
    write('registry.test:5000/client.cert', CLIENT);
    write('registry.test:5000/client.key', CLIENT_KEY);
    const certs = registryCertDir(dir);
    const quay = certs.tlsFor(url('quay.io'));
    expect(quay?.ca).toBe(`${CA.trim()}\n${SERVER.trim()}\n`);
    expect(quay?.cert).toBeUndefined();
    const other = certs.tlsFor(url('ghcr.io'));
    expect(other?.ca).toBe(`${CA.trim()}\n`);
    const mtls = certs.tlsFor(url('registry.test:5000'));
    expect(mtls).toMatchObject({ ca: `${CA.trim()}\n`, cert: CLIENT, key: CLIENT_KEY });
    // The port is part of the subdirectory's name.
    expect(certs.tlsFor(url('registry.test'))?.cert).toBeUndefined();
    // Equal material, equal id; different material, different id.
    expect(certs.tlsFor(url('docker.io'))?.id).toBe(other?.id);
    expect(quay?.id).not.toBe(other?.id);
  });

  it("uses the directory's own client certificate unless the host has one, the first pair by name", () => {
    write('b.cert', CLIENT);
    write('b.key', CLIENT_KEY);
    write('a.cert', SERVER);
    write('a.key', 'KEY-A');
    write('r.test/z.cert', CLIENT);
    write('r.test/z.key', 'KEY-Z');
    const certs = registryCertDir(dir);
    expect(certs.tlsFor(url('other.test'))).toMatchObject({ cert: SERVER, key: 'KEY-A' });
    expect(certs.tlsFor(url('other.test'))?.ca).toBeUndefined();
    expect(certs.tlsFor(url('r.test'))).toMatchObject({ cert: CLIENT, key: 'KEY-Z' });
  });

  it("refuses a certificate without its key and a key without its certificate, with containers/image's texts", () => {
    write('client.cert', CLIENT);
    expect(() => registryCertDir(dir).tlsFor(url('a.test'))).toThrow(
      'missing key client.key for client certificate client.cert. Note that CA certificates should use the extension .crt',
    );
    rmSync(join(dir, 'client.cert'));
    write('r.test/orphan.key', CLIENT_KEY);
    const certs = registryCertDir(dir);
    expect(certs.tlsFor(url('a.test'))).toBeUndefined();
    expect(() => certs.tlsFor(url('r.test'))).toThrow('missing client certificate orphan.cert for key orphan.key');
  });

  it('reads the directory again once the last reading is older than refreshMs', () => {
    let now = 0;
    const certs = registryCertDir(dir, { refreshMs: 1000, now: () => now });
    expect(certs.tlsFor(url('a.test'))).toBeUndefined();
    write('ca.crt', CA);
    now = 999;
    expect(certs.tlsFor(url('a.test'))).toBeUndefined();
    now = 1000;
    const first = certs.tlsFor(url('a.test'));
    expect(first?.ca).toBe(`${CA.trim()}\n`);
    now = 5000;
    expect(certs.tlsFor(url('a.test'))?.id).toBe(first?.id);
    rmSync(join(dir, 'ca.crt'));
    now = 9000;
    expect(certs.tlsFor(url('a.test'))).toBeUndefined();
  });

  it('checks at start-up that the directory is readable and holds a certificate', () => {
    expect(() => checkRegistryCertDir(dir)).toThrow(`no certificates found in ${JSON.stringify(dir)}`);
    expect(() => checkRegistryCertDir(join(dir, 'absent'))).toThrow(/ENOENT/);
    write('..data/ca.crt', CA);
    expect(() => checkRegistryCertDir(dir)).toThrow('no certificates found');
    write('quay.io/ca.crt', CA);
    expect(() => checkRegistryCertDir(dir)).not.toThrow();
  });
});

describe('CA directories', () => {
  it('trusts the certificates of every file, following links and skipping directories', () => {
    write('..data/service-ca.pem', `${CA}${SERVER}`);
    symlinkSync(join(dir, '..data', 'service-ca.pem'), join(dir, 'service-ca.pem'));
    write('readme', 'no certificate here');
    expect(readCaDir(dir)).toBe(`${CA.trim()}\n${SERVER.trim()}\n`);
  });

  it('refuses a directory without certificates, and keeps the last good bundle when a later reading fails', () => {
    expect(() => readCaDir(dir)).toThrow(`no certificates found in ${JSON.stringify(dir)}`);
    write('ca.pem', CA);
    let now = 0;
    const errors: string[] = [];
    const pem = caDirPem(dir, { now: () => now, onError: (e) => errors.push(e.message) });
    expect(pem()).toBe(`${CA.trim()}\n`);
    write('ca.pem', SERVER);
    now = 1000;
    expect(pem()).toBe(`${SERVER.trim()}\n`);
    rmSync(join(dir, 'ca.pem'));
    now = 2000;
    expect(pem()).toBe(`${SERVER.trim()}\n`);
    expect(errors).toEqual([`no certificates found in ${JSON.stringify(dir)}`]);
  });
});
