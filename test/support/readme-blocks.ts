/** The README's walk-throughs as tests run them: the shell blocks of one section, as written. */

/**
 * The ```sh blocks of the README section headed `heading` (up to the next `## `), in order,
 * their list indentation removed. Throws when the section is missing.
 */
export function shellBlocks(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README has no section "${heading}"`);
  const end = markdown.indexOf('\n## ', start + heading.length + 2);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^( *)```sh\n([\s\S]*?)^\1```$/gm)].map(([, indent = '', body = '']) =>
    body
      .split('\n')
      .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l))
      .join('\n'),
  );
}
