/**
 * The shape of a parsed CEL expression, read before anything runs: how many nodes, how deeply
 * comprehensions nest, the widest literal list or map, the identifiers named and the functions
 * the caller's environment does not know. Catalog rules (pkg/operator-controller/dependencies)
 * and CRD validation rules (pkg/operator-controller/crdupgrade) are both hostile input and are
 * bounded from this before their cost is estimated.
 */
import type { parse } from '@bufbuild/cel';

type ParsedExpr = ReturnType<typeof parse>['expr'];

interface CelShape {
  nodes: number;
  /** Comprehensions nested in one another (macros: all, exists, map, filter...). */
  depth: number;
  /** The most elements of one literal list or entries of one literal map. */
  widestLiteral: number;
  /** Functions `known` refused, in the order met (with repeats). */
  unknown: string[];
  /** Identifiers named. */
  idents: Set<string>;
}

export function celShape(root: ParsedExpr, known: (fn: string) => boolean): CelShape {
  const s: CelShape = { nodes: 0, depth: 0, widestLiteral: 0, unknown: [], idents: new Set() };
  const walk = (e: ParsedExpr | undefined, depth: number): void => {
    if (e === undefined) return;
    s.nodes++;
    const k = e.exprKind;
    switch (k.case) {
      case 'identExpr':
        s.idents.add(k.value.name);
        return;
      case 'callExpr':
        if (!known(k.value.function)) s.unknown.push(k.value.function);
        walk(k.value.target, depth);
        for (const a of k.value.args) walk(a, depth);
        return;
      case 'comprehensionExpr': {
        const c = k.value;
        s.depth = Math.max(s.depth, depth + 1);
        walk(c.iterRange, depth);
        walk(c.accuInit, depth);
        for (const part of [c.loopCondition, c.loopStep, c.result]) walk(part, depth + 1);
        return;
      }
      case 'selectExpr':
        walk(k.value.operand, depth);
        return;
      case 'listExpr':
        s.widestLiteral = Math.max(s.widestLiteral, k.value.elements.length);
        for (const el of k.value.elements) walk(el, depth);
        return;
      case 'structExpr':
        s.widestLiteral = Math.max(s.widestLiteral, k.value.entries.length);
        for (const entry of k.value.entries) {
          if (entry.keyKind.case === 'mapKey') walk(entry.keyKind.value, depth);
          walk(entry.value, depth);
        }
        return;
      default:
        return;
    }
  };
  walk(root, 0);
  return s;
}
