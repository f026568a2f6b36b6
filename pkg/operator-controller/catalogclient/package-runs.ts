/**
 * Splitting a catalog's blob stream (`/api/v1/all`) into runs of one package each, as they come:
 * catalogd serves a catalog as it was rendered, each package's blobs together (the package, its
 * channels, bundles and deprecations), so a reader can handle one package at a time and hold no
 * more than that package. A package whose blobs are not all in one run is named in `scattered`
 * when the stream ends: its earlier run was partial, and the caller reads it again whole (for
 * example with `getPackage`). Blobs of no package are dropped, as in every partition. Pure.
 */
import type { Meta } from '../../shared/fbc/index.ts';

/** What the stream held, once it has ended. */
interface PackageRunsEnd {
  /** Names of the `olm.package` blobs seen. */
  packageNames: Set<string>;
  /** Packages whose blobs came in more than one run: their runs were partial. */
  scattered: Set<string>;
}

/** A splitter: `add` each blob in stream order, then `end` once. */
interface PackageRuns {
  add(meta: Meta): void;
  end(): PackageRunsEnd;
}

/** The package a blob belongs to: an `olm.package` blob is its own package. */
function packageOf(meta: Meta): string {
  return meta.schema === 'olm.package' ? meta.name : meta.package;
}

/** Starts a splitter that hands each run, in order, to `onRun`. */
export function createPackageRuns(onRun: (pkg: string, metas: Meta[]) => void): PackageRuns {
  const done = new Set<string>();
  const scattered = new Set<string>();
  const packageNames = new Set<string>();
  let current = '';
  let run: Meta[] = [];
  const flush = (): void => {
    if (run.length === 0) return;
    if (done.has(current)) scattered.add(current);
    else onRun(current, run);
    done.add(current);
    run = [];
  };
  return {
    add(meta) {
      const pkg = packageOf(meta);
      if (pkg === '') return;
      if (meta.schema === 'olm.package') packageNames.add(pkg);
      if (pkg !== current) {
        flush();
        current = pkg;
      }
      run.push(meta);
    },
    end() {
      flush();
      return { packageNames, scattered };
    },
  };
}
