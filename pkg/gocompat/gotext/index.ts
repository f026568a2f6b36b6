/**
 * pkg/gocompat/gotext: Go's text renderings and string semantics that upstream messages and orderings
 * depend on, in one place for every module that reproduces upstream output.
 */
export { goBool, goBoolVerb, goDuration, goFormatFloatG, goTypeName, goValueV, parseUint64 } from './format.ts';
export { goList, goQuote } from './quote.ts';
export { compareUtf8, compareWalkOrder, goIsSpace, goSorted, goTrimSpace, utf8Length } from './strings.ts';
