/**
 * Reading local trees and files a user names (catalog and bundle directories, configuration
 * and credential files): regular files and directories only, symbolic links only when they
 * stay inside the named tree, and every error naming its path. See
 * docs/decisions/0053-local-files-regular-and-confined.md.
 */
export { LocalFileError } from './errors.ts';
export { type LocalTree, listDir, openTree } from './tree.ts';
export { openRegularFileSync, readFailure, readRegularFile } from './read.ts';
