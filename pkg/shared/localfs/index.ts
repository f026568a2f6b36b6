/**
 * Reading local trees and files a user names: regular files and directories only, links only
 * inside the named tree, every error naming its path (decision 0053).
 */
export { LocalFileError } from './errors.ts';
export { type LocalTree, listDir, openTree } from './tree.ts';
export { openRegularFileSync, readFailure, readRegularFile } from './read.ts';
