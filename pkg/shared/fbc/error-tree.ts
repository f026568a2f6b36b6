/**
 * The tree of model validation errors and its rendering (operator-registry
 * `model.validationError`): each node prints `<prefix><message>` then `:` and its children,
 * children prefixed `├── ` or, for the last, `└── `, grandchildren continuing the parent's
 * column with `│   ` (parent not last) or four spaces. Childless nodes are dropped.
 */

/** A validation error with nested causes. Leaves are plain strings. */
export class ValidationNode {
  readonly message: string;
  readonly children: (ValidationNode | string)[] = [];

  constructor(message: string) {
    this.message = message;
  }

  /** Adds a cause; undefined and childless nodes are skipped (upstream's `orNil`). */
  add(child: ValidationNode | string | undefined): void {
    if (child === undefined) return;
    if (child instanceof ValidationNode && child.children.length === 0) return;
    this.children.push(child);
  }

  /** This node, or undefined when it has no causes. */
  orUndefined(): ValidationNode | undefined {
    return this.children.length === 0 ? undefined : this;
  }

  /** The rendered tree, trimmed of surrounding white space. */
  render(): string {
    return render(this, '', true).trim();
  }
}

function render(node: ValidationNode, prefix: string, last: boolean): string {
  let out = `${prefix}${node.message}${node.children.length === 0 ? '\n' : ':\n'}`;
  node.children.forEach((child, i) => {
    let sub = prefix;
    if (sub.length >= 4) sub = sub.slice(0, -4) + (last ? '    ' : '│   ');
    const subLast = i === node.children.length - 1;
    sub += subLast ? '└── ' : '├── ';
    out += child instanceof ValidationNode ? render(child, sub, subLast) : `${sub}${child}\n`;
  });
  return out;
}
