/**
 * `opm validate` semantics over an already loaded config: conversion to the model, then the
 * model checks. Pure: no file system access.
 */
import { convertToModel } from './model.ts';
import { validateModel } from './model-validate.ts';
import type { DeclarativeConfig } from './types.ts';

/**
 * Every validation error of `cfg`: the conversion errors (one line each, in upstream's order),
 * then the rendered `invalid index:` tree when the model has problems; empty when valid. Unlike
 * upstream, conversion goes on past independent errors, so users see everything at once.
 */
export function validate(cfg: DeclarativeConfig): string[] {
  const { packages, errors } = convertToModel(cfg);
  const tree = validateModel(packages);
  return tree === undefined ? errors : [...errors, tree.render()];
}
