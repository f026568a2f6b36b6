/**
 * operator-controller's gate parser for `olmv1 upgrade plan|approve` (pkg/olmv1/upgrade takes
 * it injected): its own options parser decides names, defaults and refusals, and `--feature-gates`
 * is checked with it.
 */
import type { RenderGates } from '../../pkg/operator-controller/render/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { parseOperatorControllerOptions } from '../operator-controller/options.ts';
import { EXIT } from './io.ts';
import { CommandError } from './render.ts';

/**
 * The gates operator-controller runs with under these occurrences of `--feature-gates`: its own
 * options parser decides (as up-feature-gates.ts has it, a kubeconfig path is the one thing it
 * requires; nothing is read). Throws Error with the parser's text.
 */
export function controllerGates(occurrences: readonly string[]): RenderGates {
  const o = parseOperatorControllerOptions(['--kubeconfig', 'unused', ...occurrences.map((v) => `--feature-gates=${v}`)], {});
  if (o === 'help') throw new Error('unexpected --help');
  return o.featureGates;
}

/**
 * Checks `--feature-gates` as operator-controller would.
 * @throws CommandError (exit 2) with its parser's text.
 */
export function checkGatesFlag(occurrences: readonly string[], usage: string): void {
  try {
    controllerGates(occurrences);
  } catch (e) {
    throw new CommandError(`--feature-gates: ${errorMessage(e)}\n${usage}`, EXIT.usage);
  }
}
