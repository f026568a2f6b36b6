/**
 * Benchmark child: the floor under idle watches in Node. The same watches as the drift-watches
 * child (paths given by the parent, the same ServiceAccount's token, bookmarks allowed, one hour
 * long) as bare `node:http2` streams, 100 to a session as kube-apiserver allows, opened 16 at a
 * time (a 429 of the API server's flow control is retried after a second): their bytes are
 * counted by newline and dropped, with no decoding, no informer and no cache. What receiving the
 * API server's bookmarks costs Node itself, which no client code can go below.
 *
 * IPC: `watch` {server, caPem, token, paths} -> `open` -> `count` -> `count` {events} -> `stop`.
 */
import { type ClientHttp2Session, connect } from 'node:http2';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ChildMessage, fromParent, runChild, toParent } from '../lib/child.ts';

interface WatchMessage extends ChildMessage {
  server: string;
  caPem: string;
  token: string;
  paths: string[];
}

const STREAMS_PER_SESSION = 100;

/** Opens the watch at `path` on `session`; resolves once it answered 200, retrying 429s (the API server's flow control) after a second. */
async function openWatch(
  session: ClientHttp2Session,
  path: string,
  token: string,
  onData: (chunk: Buffer) => void,
  onError: (err: string) => void,
): Promise<void> {
  for (;;) {
    const stream = session.request({ ':path': path, authorization: `Bearer ${token}`, accept: 'application/json' });
    const status = await new Promise<number>((resolve, reject) => {
      stream.once('response', (headers) => resolve(Number(headers[':status'])));
      stream.once('error', reject);
    });
    if (status === 200) {
      stream.on('data', onData);
      stream.on('error', (err) => onError(`${path}: ${err.message}`));
      return;
    }
    stream.destroy();
    if (status !== 429) throw new Error(`${path}: status ${status}`);
    await sleep(1000);
  }
}

runChild(async () => {
  const msg = await fromParent<WatchMessage>('watch');
  const sessions: ClientHttp2Session[] = [];
  let events = 0;
  let failure: string | undefined;
  const onData = (chunk: Buffer): void => {
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, nl + 1)) events++;
  };
  const onError = (err: string): void => {
    failure ??= err;
  };
  const work: { session: ClientHttp2Session; path: string }[] = [];
  for (let i = 0; i < msg.paths.length; i += STREAMS_PER_SESSION) {
    const session = connect(msg.server, { ca: msg.caPem });
    session.on('error', (err) => onError(err.message));
    sessions.push(session);
    for (const path of msg.paths.slice(i, i + STREAMS_PER_SESSION)) work.push({ session, path });
  }
  // A few at a time, as the informers of the drift watches start theirs.
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < work.length) {
        const w = work[next++] as (typeof work)[number];
        await openWatch(w.session, w.path, msg.token, onData, onError);
      }
    }),
  );
  if (failure !== undefined) throw new Error(failure);
  toParent({ type: 'open', sessions: sessions.length });
  for (;;) {
    const asked = await Promise.race([fromParent('count'), fromParent('stop')]);
    if (asked.type === 'stop') break;
    toParent({ type: 'count', events, failure: failure ?? null });
  }
  for (const s of sessions) s.destroy();
});
