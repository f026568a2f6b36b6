/**
 * One TLS handshake with a server, as a client restricted to chosen versions, ciphers and curves
 * (Node's `tls.connect` options: `minVersion`, `maxVersion`, `ciphers` in OpenSSL's names,
 * `ecdhCurve`), for tests of the TLS profile a server enforces. The result tells what was
 * negotiated, or why there was no connection: the OpenSSL error code of an alert the server sent
 * (`ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION` for a version it refuses,
 * `ERR_SSL_SSL/TLS_ALERT_HANDSHAKE_FAILURE` for no shared cipher or group), `timeout`, or the
 * socket error (`ECONNREFUSED`), so that a test can tell a refusal from an unreachable server.
 */
import { type ConnectionOptions, connect } from 'node:tls';

/** What a handshake ended with. */
export type Handshake = { protocol: string; cipher: string; group: string } | { refused: string };

/** Where to connect and whom to trust. */
export interface TlsTarget {
  host: string;
  port: number;
  /** PEM of the CA the server's certificate must chain to. */
  ca: string;
  /** The name the certificate must carry (SNI too). */
  servername: string;
}

/**
 * Connects to `target` with `options` and resolves the protocol (`TLSv1.3`), the cipher's IANA
 * name and the key-exchange group (`prime256v1`, `X25519`, `SecP256r1MLKEM768`), or
 * `{ refused: <code> }`. Never rejects.
 */
export function handshake(target: TlsTarget, options: ConnectionOptions = {}, timeoutMs = 5000): Promise<Handshake> {
  return new Promise((resolve) => {
    const socket = connect({ host: target.host, port: target.port, ca: target.ca, servername: target.servername, ...options }, () => {
      const key = socket.getEphemeralKeyInfo();
      resolve({
        protocol: socket.getProtocol() ?? '',
        cipher: socket.getCipher().standardName,
        group: key !== null && 'name' in key ? String(key.name) : '',
      });
      socket.destroy();
    });
    socket.setTimeout(timeoutMs, () => {
      resolve({ refused: 'timeout' });
      socket.destroy();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => resolve({ refused: err.code ?? err.message }));
  });
}
