/** Usage errors of the olmv1 commands' argument parsers, for their unit tests. */
import { expect } from 'vitest';
import { CommandError } from '../../cmd/olmv1/render.ts';

/** The first line of the usage error (a CommandError with exit code 2) that `parse` throws; fails the test when it throws none. */
export function usageErrorLine(parse: () => unknown): string {
  try {
    parse();
  } catch (e) {
    expect(e).toBeInstanceOf(CommandError);
    expect((e as CommandError).exitCode).toBe(2);
    return (e as CommandError).message.split('\n')[0] ?? '';
  }
  throw new Error('expected a usage error');
}
