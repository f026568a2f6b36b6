/**
 * Builds the console's UI into static files, dist/console/ (decision 0141): the step of the
 * project's build for the browser code (`npm run build` compiles the rest; the Dockerfile runs
 * both). `olmv1 console` serves these files when they match the sources.
 *
 *   node scripts/build-console.ts
 */
import { join } from 'node:path';
import { buildBundle } from '../pkg/olmv1/console/index.ts';

const root = join(import.meta.dirname, '..');
const key = await buildBundle({ lockFile: join(root, 'package-lock.json'), outDir: join(root, 'dist', 'console') });
process.stdout.write(`dist/console (bundle key ${key})\n`);
