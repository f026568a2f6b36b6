/**
 * Benchmark child: the memory floor under operator-controller's RSS that no operator-controller
 * code causes. It loads the libraries operator-controller runs on and sets them up the same
 * way, then idles: a pino logger, a prom-client registry with the default metrics served on
 * /metrics by a node:http server (pkg/shared/nodehttp, as the health server), zod and js-yaml in use,
 * and the Kubernetes client modules (pkg/shared/kube, which loads @kubernetes/client-node) imported
 * but not connected. With `modules`, it also imports operator-controller's whole composition
 * root (cmd/operator-controller/run.ts and control.ts, which run.ts loads once it started its
 * informers) without running it.
 *
 * The parent reads its memory from /proc and forces collections through the inspector, as it
 * does for operator-controller (bench/lib/inspector.ts). Prints `ready <port>` on stderr.
 *
 * Usage: node [--inspect-port=...] operator-controller-floor.ts libraries|modules
 */
import { load } from 'js-yaml';
import pino from 'pino';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { z } from 'zod';
import { http } from '../../pkg/shared/nodehttp/index.ts';

const kind = process.argv[2];
if (kind !== 'libraries' && kind !== 'modules') {
  process.stderr.write('usage: operator-controller-floor.ts libraries|modules\n');
  process.exit(2);
}
const log = pino({ level: 'info', base: { component: 'floor' } }, pino.destination('/dev/null'));
const registry = new Registry();
collectDefaultMetrics({ register: registry });
const Doc = z.object({ apiVersion: z.string(), kind: z.string(), metadata: z.object({ name: z.string() }) });
Doc.parse(load('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: floor\n'));
await import('../../pkg/shared/kube/index.ts');
if (kind === 'modules') await Promise.all([import('../../cmd/operator-controller/run.ts'), import('../../cmd/operator-controller/control.ts')]);

const server = http.createServer((req, res) => {
  if (req.url !== '/metrics') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    return;
  }
  registry.metrics().then(
    (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
    () => res.writeHead(500).end(),
  );
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  log.info({ port }, 'floor listening');
  process.stderr.write(`ready ${port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
