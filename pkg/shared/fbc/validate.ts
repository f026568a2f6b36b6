/**
 * `opm validate` semantics over an already loaded config: conversion to the model, then the
 * model checks. Pure: no file system access.
 */
import { convertToModel } from './model.ts';
import { validateModel } from './model-validate.ts';
import type { DeclarativeConfig } from './types.ts';

/**
 * Every validation error of `cfg`: first the conversion errors (each a single line, in
 * upstream's check order), then, if the model has problems, the rendered `invalid index:` tree
 * as one multi-line string. Empty when the catalog is valid.
 *
 * Upstream stops at the first conversion error; here conversion goes on past independent
 * errors and the model checks run on what could be converted, so users see everything at once.
 */
export function validate(cfg: DeclarativeConfig): string[] {
  const { packages, errors } = convertToModel(cfg);
  const tree = validateModel(packages);
  return tree === undefined ? errors : [...errors, tree.render()];
}
