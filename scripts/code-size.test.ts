import { describe, expect, it } from 'vitest';
import { codeLines } from './code-size.ts';

describe('codeLines', () => {
  it('counts lines that are neither blank nor comments', () => {
    const text = ['/**', ' * doc', ' */', 'const a = 1;', '', '  // note', '/* one line */', 'f(a); // trailing', '/* open', 'still */', '}'].join(
      '\n',
    );
    expect(codeLines(text)).toBe(3);
  });

  it('counts Go the same way', () => {
    expect(codeLines('package x\n\n// Doc.\nfunc F() {\n\treturn\n}\n')).toBe(4);
  });
});
